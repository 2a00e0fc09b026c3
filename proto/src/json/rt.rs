//! Helpers used by the generated ProtoJSON impls. Not a stable API.

use super::JsonEnum;
use alloc::collections::btree_map::Entry;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;
use core::marker::PhantomData;
use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};
use serde::ser::{Serialize, Serializer};

/// Marks field `bit` as seen; a second occurrence (under either of its names) is an error.
#[inline]
pub fn once<E: de::Error>(seen: &mut u64, bit: usize, name: &'static str) -> Result<(), E> {
    let mask = 1u64 << bit;
    if *seen & mask != 0 {
        return Err(E::duplicate_field(name));
    }
    *seen |= mask;
    Ok(())
}

/// The error for two members of one oneof.
#[cold]
pub fn oneof_conflict<E: de::Error>(oneof: &str, first: &str, second: &str, members: &str) -> E {
    E::custom(format_args!("`{first}` and `{second}` are both set, but oneof `{oneof}` allows exactly one of {members}"))
}

/// `int32`: a JSON number with an integral value, or a string holding one.
pub struct I32(pub i32);

impl<'de> Deserialize<'de> for I32 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = I32;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a 32-bit integer (number or numeric string)")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<I32, E> {
                i32::try_from(v).map(I32).map_err(|_| E::custom(format_args!("{v} is out of range for int32")))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<I32, E> {
                i32::try_from(v).map(I32).map_err(|_| E::custom(format_args!("{v} is out of range for int32")))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<I32, E> {
                if v.is_finite() && v == (v as i64) as f64 && (f64::from(i32::MIN)..=f64::from(i32::MAX)).contains(&v) {
                    Ok(I32(v as i32))
                } else {
                    Err(E::custom(format_args!("{v} is not an int32")))
                }
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<I32, E> {
                if let Ok(v) = s.parse::<i64>() {
                    return self.visit_i64(v);
                }
                match s.parse::<f64>() {
                    Ok(v) if !s.is_empty() && !s.starts_with(char::is_whitespace) && !s.ends_with(char::is_whitespace) => self.visit_f64(v),
                    _ => Err(E::invalid_value(de::Unexpected::Str(s), &self)),
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// `bytes`, read from base64 text.
pub struct Bytes(pub Vec<u8>);

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Bytes;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a base64 string")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Bytes, E> {
                super::base64::decode(s).map(Bytes).map_err(E::custom)
            }
        }
        d.deserialize_str(V)
    }
}

/// `bytes`, written as standard padded base64.
pub struct Base64<'a>(pub &'a [u8]);

impl Serialize for Base64<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&super::base64::encode(self.0))
    }
}

/// An enum field read from its value name or number.
pub struct Enum<E>(pub i32, PhantomData<E>);

impl<'de, T: JsonEnum> Deserialize<'de> for Enum<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<T: JsonEnum> Visitor<'_> for V<T> {
            type Value = Enum<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "a {} value name or number", T::FULL_NAME)
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Enum<T>, E> {
                T::from_json_name(s)
                    .map(|v| Enum(v, PhantomData))
                    .ok_or_else(|| E::custom(format_args!("unknown {} value \"{}\"", T::FULL_NAME, s.escape_debug())))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Enum<T>, E> {
                // Proto3 enums are open: any int32 is kept, and written back as a number.
                i32::try_from(v).map(|v| Enum(v, PhantomData)).map_err(|_| E::custom(format_args!("{v} is out of range for an enum")))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Enum<T>, E> {
                i32::try_from(v).map(|v| Enum(v, PhantomData)).map_err(|_| E::custom(format_args!("{v} is out of range for an enum")))
            }
        }
        d.deserialize_any(V(PhantomData))
    }
}

/// An enum field written as its value name (or its number when the value is unknown).
pub struct EnumSer<T>(pub i32, pub PhantomData<T>);

impl<T: JsonEnum> Serialize for EnumSer<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match T::json_name(self.0) {
            Some(name) => s.serialize_str(name),
            None => s.serialize_i32(self.0),
        }
    }
}

/// `map<string, V>`: a JSON object; a key given twice is an error.
pub struct Map<V>(pub BTreeMap<String, V>);

impl<'de, V: Deserialize<'de>> Deserialize<'de> for Map<V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Vis<V>(PhantomData<V>);
        impl<'de, V: Deserialize<'de>> Visitor<'de> for Vis<V> {
            type Value = Map<V>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Map<V>, A::Error> {
                let mut out = BTreeMap::new();
                while let Some(k) = m.next_key::<String>()? {
                    match out.entry(k) {
                        Entry::Occupied(e) => {
                            return Err(de::Error::custom(format_args!("duplicate map key \"{}\"", e.key().escape_debug())));
                        }
                        Entry::Vacant(e) => {
                            e.insert(m.next_value::<V>()?);
                        }
                    }
                }
                Ok(Map(out))
            }
        }
        d.deserialize_map(Vis(PhantomData))
    }
}
