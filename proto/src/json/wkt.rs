//! ProtoJSON of the well-known types, written by hand: Timestamp (RFC 3339 with `Z`), Struct
//! and Value (plain JSON), ListValue (array), Empty (`{}`).

use crate::google::protobuf::{value::Kind, Empty, ListValue, NullValue, Struct, Timestamp, Value};
use crate::validate::{Path, Validate, Violations};
use alloc::borrow::Cow;
use alloc::collections::btree_map::Entry;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Error as _, Serialize, SerializeMap, SerializeSeq, Serializer};

// ---------------------------------------------------------------- Timestamp

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let text = super::timestamp::format(self.seconds, self.nanos).map_err(S::Error::custom)?;
        s.serialize_str(text.as_str())
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Timestamp;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an RFC 3339 timestamp string")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Timestamp, E> {
                let (seconds, nanos) = super::timestamp::parse(s).map_err(E::custom)?;
                Ok(Timestamp { seconds, nanos })
            }
        }
        d.deserialize_str(V)
    }
}

impl Validate for Timestamp {
    fn validate_at(&self, at: &Path<'_>, out: &mut Violations) {
        if let Err(e) = super::timestamp::format(self.seconds, self.nanos) {
            out.push_path(at, Cow::Owned(alloc::format!("{e}")));
        }
    }
}

// ---------------------------------------------------------------- Struct

impl Serialize for Struct {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.fields.len()))?;
        for (k, v) in &self.fields {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

struct StructVisitor;

impl<'de> Visitor<'de> for StructVisitor {
    type Value = Struct;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Struct, A::Error> {
        let mut fields = BTreeMap::new();
        while let Some(k) = m.next_key::<String>()? {
            match fields.entry(k) {
                Entry::Occupied(e) => {
                    return Err(de::Error::custom(format_args!("duplicate key \"{}\" in object", e.key().escape_debug())));
                }
                Entry::Vacant(e) => {
                    e.insert(m.next_value::<Value>()?);
                }
            }
        }
        Ok(Struct { fields })
    }
}

impl<'de> Deserialize<'de> for Struct {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(StructVisitor)
    }
}

impl Validate for Struct {
    fn validate_at(&self, at: &Path<'_>, out: &mut Violations) {
        for (k, v) in &self.fields {
            v.validate_at(&at.key(k), out);
        }
    }
}

// ---------------------------------------------------------------- Value

/// Largest magnitude below which every integer is exactly representable in an f64.
const EXACT_INT: f64 = 9_007_199_254_740_992.0; // 2^53

impl Serialize for Value {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match &self.kind {
            // A Value with no kind (possible only from protobuf input) is written as null.
            None | Some(Kind::NullValue(_)) => s.serialize_unit(),
            Some(Kind::NumberValue(n)) => {
                if !n.is_finite() {
                    Err(S::Error::custom("a google.protobuf.Value number is NaN or infinite, which JSON cannot carry"))
                } else if n.abs() < EXACT_INT && (*n as i64) as f64 == *n && !(*n == 0.0 && n.is_sign_negative()) {
                    // Integral values are written without a fraction (`3`, not `3.0`), as every
                    // ProtoJSON printer does.
                    s.serialize_i64(*n as i64)
                } else {
                    s.serialize_f64(*n)
                }
            }
            Some(Kind::StringValue(v)) => s.serialize_str(v),
            Some(Kind::BoolValue(v)) => s.serialize_bool(*v),
            Some(Kind::StructValue(v)) => v.serialize(s),
            Some(Kind::ListValue(v)) => v.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Value;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
                Ok(Value { kind: Some(Kind::NullValue(NullValue::NullValue as i32)) })
            }
            fn visit_none<E: de::Error>(self) -> Result<Value, E> {
                self.visit_unit()
            }
            fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
                Ok(Value { kind: Some(Kind::BoolValue(v)) })
            }
            fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
                Ok(Value { kind: Some(Kind::NumberValue(v as f64)) })
            }
            fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
                Ok(Value { kind: Some(Kind::NumberValue(v as f64)) })
            }
            fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
                Ok(Value { kind: Some(Kind::NumberValue(v)) })
            }
            fn visit_str<E>(self, v: &str) -> Result<Value, E> {
                Ok(Value { kind: Some(Kind::StringValue(String::from(v))) })
            }
            fn visit_string<E>(self, v: String) -> Result<Value, E> {
                Ok(Value { kind: Some(Kind::StringValue(v)) })
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Value, A::Error> {
                ListVisitor.visit_seq(seq).map(|l| Value { kind: Some(Kind::ListValue(l)) })
            }
            fn visit_map<A: MapAccess<'de>>(self, m: A) -> Result<Value, A::Error> {
                StructVisitor.visit_map(m).map(|s| Value { kind: Some(Kind::StructValue(s)) })
            }
        }
        d.deserialize_any(V)
    }
}

impl Validate for Value {
    fn validate_at(&self, at: &Path<'_>, out: &mut Violations) {
        match &self.kind {
            Some(Kind::NumberValue(n)) if !n.is_finite() => {
                out.push_here(at, "number is NaN or infinite, which JSON cannot carry");
            }
            Some(Kind::StructValue(s)) => s.validate_at(at, out),
            Some(Kind::ListValue(l)) => l.validate_at(at, out),
            _ => {}
        }
    }
}

// ---------------------------------------------------------------- ListValue

impl Serialize for ListValue {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.values.len()))?;
        for v in &self.values {
            seq.serialize_element(v)?;
        }
        seq.end()
    }
}

struct ListVisitor;

impl<'de> Visitor<'de> for ListVisitor {
    type Value = ListValue;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON array")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ListValue, A::Error> {
        let mut values = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
        while let Some(v) = seq.next_element::<Value>()? {
            values.push(v);
        }
        Ok(ListValue { values })
    }
}

impl<'de> Deserialize<'de> for ListValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_seq(ListVisitor)
    }
}

impl Validate for ListValue {
    fn validate_at(&self, at: &Path<'_>, out: &mut Violations) {
        for (i, v) in self.values.iter().enumerate() {
            v.validate_at(&at.index(i), out);
        }
    }
}

// ---------------------------------------------------------------- Empty

impl Serialize for Empty {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_map(Some(0))?.end()
    }
}

impl<'de> Deserialize<'de> for Empty {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Empty;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Empty, A::Error> {
                // Unknown fields are ignored, as everywhere else.
                while m.next_entry::<de::IgnoredAny, de::IgnoredAny>()?.is_some() {}
                Ok(Empty {})
            }
        }
        d.deserialize_map(V)
    }
}

impl Validate for Empty {
    fn validate_at(&self, _at: &Path<'_>, _out: &mut Violations) {}
}
