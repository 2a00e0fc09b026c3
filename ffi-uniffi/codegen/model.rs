//! Generator of the uniffi model (Kotlin data classes and sealed classes, Swift structs and
//! enums), from the descriptors of `a2a-wire-proto` (`a2a_wire_proto::FILE_DESCRIPTOR_SET`).
//!
//! For every message of `lf.a2a.v1` it emits one `#[derive(uniffi::Record)]` struct named as
//! in the proto (`Task`, `APIKeySecurityScheme`), every field defaulted (proto3: absent is the
//! zero value), and the two conversions to and from the prost type:
//! - scalars as themselves (`String`, `bool`, `i32`, `Vec<u8>` as `ByteArray`/`Data`);
//! - enums as `#[derive(uniffi::Enum)]` named as in the proto, members without the enum's
//!   prefix (`TaskState.Completed` in Kotlin, a sealed class), and `Unrecognized(number)` for a
//!   number the enum does not name (a newer peer's), which goes back on the wire unchanged;
//! - every oneof as one field of a `#[derive(uniffi::Enum)]` with data, named message + oneof
//!   (`PartContent.Text(text)`: a Kotlin sealed class), absent as `null`;
//! - `google.protobuf.Struct` and `Value` as their JSON text (a `String`), checked when the
//!   value goes back to the core; `Timestamp` as `SystemTime` (`java.time.Instant`, `Date`);
//! - repeated fields as lists, maps as `HashMap<String, _>`, optional messages as `Option`.
//!
//! Any proto shape the generator does not know fails the build: a new shape must get a
//! decision here.

use heck::{ToShoutySnakeCase, ToSnakeCase, ToUpperCamelCase};
use prost_reflect::{DescriptorPool, EnumDescriptor, Kind, MessageDescriptor};
use std::fmt::Write;

/// The package whose messages and enums become uniffi types.
pub const PACKAGE: &str = "lf.a2a.v1";

#[derive(Clone)]
enum Ty {
    Str,
    Bool,
    Int32,
    Bytes,
    /// the enum's name
    Enum(String),
    /// the message's name
    Msg(String),
    Struct,
    Value,
    Timestamp,
}

impl Ty {
    /// The uniffi-side Rust type.
    fn rust(&self) -> String {
        match self {
            Ty::Str | Ty::Struct | Ty::Value => "String".into(),
            Ty::Bool => "bool".into(),
            Ty::Int32 => "i32".into(),
            Ty::Bytes => "Vec<u8>".into(),
            Ty::Enum(n) | Ty::Msg(n) => n.clone(),
            Ty::Timestamp => "std::time::SystemTime".into(),
        }
    }
    /// Expression turning `x` (the prost value, owned) into the uniffi value.
    fn from_pb(&self, x: &str) -> String {
        match self {
            Ty::Str | Ty::Bool | Ty::Int32 | Ty::Bytes => x.to_string(),
            Ty::Enum(n) => format!("{n}::from_number({x})"),
            Ty::Msg(_) => format!("::core::convert::From::from({x})"),
            Ty::Struct | Ty::Value => format!("rt::json_text(&{x})"),
            Ty::Timestamp => format!("rt::system_time(&{x})"),
        }
    }
    /// Expression turning `x` (the uniffi value, owned) into the prost value, inside a
    /// function returning `Result<_, A2aError>`; `at` is the JSON path expression.
    fn to_pb(&self, x: &str, at: &str) -> String {
        match self {
            Ty::Str | Ty::Bool | Ty::Int32 | Ty::Bytes => x.to_string(),
            Ty::Enum(_) => format!("{x}.number()"),
            Ty::Msg(_) => format!("{x}.into_pb(&{at})?"),
            Ty::Struct => format!("rt::parse_struct(&{x}, &{at})?"),
            Ty::Value => format!("rt::parse_value(&{x}, &{at})?"),
            Ty::Timestamp => format!("rt::timestamp(&{x}, &{at})?"),
        }
    }
    /// Whether the uniffi type has a default (`#[uniffi(default)]`) without being optional.
    fn has_default(&self) -> bool {
        matches!(self, Ty::Str | Ty::Bool | Ty::Int32 | Ty::Bytes | Ty::Struct | Ty::Value)
    }
    /// Whether a singular field of this type is held as itself (not `Option`): the scalars,
    /// and enums (required in the constructor: the zero member is never a useful default).
    fn by_value(&self) -> bool {
        self.has_default() || matches!(self, Ty::Enum(_))
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Card {
    Plain,
    Optional,
    Repeated,
    Map,
}

struct Field {
    /// the proto name (snake_case), also the JSON path segment's source
    name: String,
    json: String,
    rust: String,
    ty: Ty,
    card: Card,
}

struct Oneof {
    /// the Rust field of the oneof in the prost struct and in ours
    rust: String,
    /// the prost enum path
    pb_path: String,
    /// our enum's name
    name: String,
    members: Vec<Field>,
}

fn sanitize(ident: String) -> String {
    match ident.as_str() {
        "as" | "break" | "const" | "continue" | "else" | "enum" | "false" | "fn" | "for" | "if" | "impl" | "in" | "let" | "loop"
        | "match" | "mod" | "move" | "mut" | "pub" | "ref" | "return" | "static" | "struct" | "trait" | "true" | "type" | "unsafe"
        | "use" | "where" | "while" | "dyn" | "abstract" | "become" | "box" | "do" | "final" | "macro" | "override" | "priv" | "typeof"
        | "unsized" | "virtual" | "yield" | "async" | "await" | "try" | "gen" => format!("r#{ident}"),
        "_" | "super" | "self" | "Self" | "extern" | "crate" => format!("{ident}_"),
        _ => ident,
    }
}

fn ty_of(kind: &Kind, what: &str) -> Ty {
    match kind {
        Kind::String => Ty::Str,
        Kind::Bool => Ty::Bool,
        Kind::Int32 => Ty::Int32,
        Kind::Bytes => Ty::Bytes,
        Kind::Enum(e) => {
            assert!(
                e.package_name() == PACKAGE && e.parent_message().is_none(),
                "uniffi codegen: {what}: enum {} outside {PACKAGE}",
                e.full_name()
            );
            Ty::Enum(e.name().to_string())
        }
        Kind::Message(m) => match m.full_name() {
            "google.protobuf.Struct" => Ty::Struct,
            "google.protobuf.Value" => Ty::Value,
            "google.protobuf.Timestamp" => Ty::Timestamp,
            _ if m.package_name() == PACKAGE && m.parent_message().is_none() => Ty::Msg(m.name().to_string()),
            n => panic!("uniffi codegen: {what} has message type {n}, which the generator does not support"),
        },
        other => panic!("uniffi codegen: {what} has kind {other:?}, which the generator does not support"),
    }
}

fn fields_of(m: &MessageDescriptor) -> (Vec<Field>, Vec<Oneof>) {
    let mut plain = Vec::new();
    let mut oneofs: Vec<Oneof> = Vec::new();
    for f in m.fields() {
        let what = format!("{}.{}", m.full_name(), f.name());
        let (ty, card) = if f.is_map() {
            let Kind::Message(entry) = f.kind() else { unreachable!("map fields are entry messages") };
            assert!(matches!(entry.map_entry_key_field().kind(), Kind::String), "{what}: only string map keys are supported");
            (ty_of(&entry.map_entry_value_field().kind(), &what), Card::Map)
        } else if f.is_list() {
            (ty_of(&f.kind(), &what), Card::Repeated)
        } else if f.supports_presence() && f.containing_oneof().is_none_or(|o| o.is_synthetic()) {
            (ty_of(&f.kind(), &what), Card::Optional)
        } else {
            (ty_of(&f.kind(), &what), Card::Plain)
        };
        if matches!(card, Card::Repeated | Card::Map) && !matches!(ty, Ty::Str | Ty::Msg(_)) {
            panic!("uniffi codegen: {what}: repeated/map of this type is not supported yet");
        }
        let field =
            Field { name: f.name().to_string(), json: f.json_name().to_string(), rust: sanitize(f.name().to_snake_case()), ty, card };
        match f.containing_oneof() {
            Some(o) if !o.is_synthetic() => {
                let rust = sanitize(o.name().to_snake_case());
                if let Some(of) = oneofs.iter_mut().find(|x| x.rust == rust) {
                    of.members.push(field);
                } else {
                    oneofs.push(Oneof {
                        rust,
                        pb_path: format!("pb::{}::{}", m.name().to_snake_case(), o.name().to_upper_camel_case()),
                        name: format!("{}{}", m.name(), o.name().to_upper_camel_case()),
                        members: vec![field],
                    });
                }
            }
            _ => plain.push(field),
        }
    }
    (plain, oneofs)
}

/// Rust variant name of an enum value: the value name without the enum's prefix, in
/// UpperCamelCase (`TASK_STATE_COMPLETED` -> `Completed`; Kotlin shows `COMPLETED`).
fn variant_name(e: &EnumDescriptor, value: &str) -> String {
    let prefix = format!("{}_", e.name().to_shouty_snake_case());
    let short = value.strip_prefix(&prefix).unwrap_or(value);
    assert!(short.chars().next().is_some_and(|c| c.is_ascii_alphabetic()), "{}: member {value} needs a name", e.full_name());
    short.to_upper_camel_case()
}

fn field_type(f: &Field) -> String {
    let t = f.ty.rust();
    match f.card {
        Card::Plain if f.ty.by_value() => t,
        Card::Plain | Card::Optional => format!("Option<{t}>"),
        Card::Repeated => format!("Vec<{t}>"),
        Card::Map => format!("std::collections::HashMap<String, {t}>"),
    }
}

pub fn generate(pool: &DescriptorPool) -> String {
    let mut enums: Vec<EnumDescriptor> = pool.all_enums().filter(|e| e.package_name() == PACKAGE).collect();
    enums.sort_by(|a, b| a.full_name().cmp(b.full_name()));
    let mut messages: Vec<MessageDescriptor> = pool.all_messages().filter(|m| m.package_name() == PACKAGE && !m.is_map_entry()).collect();
    messages.sort_by(|a, b| a.name().cmp(b.name()));
    for m in &messages {
        assert!(m.parent_message().is_none(), "uniffi codegen: nested message {} needs a name", m.full_name());
    }

    let mut out = String::from("// @generated by ffi-uniffi/codegen/model.rs from a2a.proto. Do not edit.\n\n");

    for e in &enums {
        let name = e.name();
        let _ = writeln!(
            out,
            "/// The `{}` enum; `Unrecognized` keeps a number this version does not name (a newer\n/// peer's), so it goes back on the wire unchanged.\n#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, uniffi::Enum)]\npub enum {name} {{",
            e.full_name()
        );
        for v in e.values() {
            let _ = writeln!(out, "    /// `{}` ({})\n    {},", v.name(), v.number(), variant_name(e, v.name()));
        }
        out.push_str("    /// A number this version does not name.\n    Unrecognized { number: i32 },\n}\n\n");
        let _ = writeln!(out, "impl {name} {{\n    /// The member of `n`.\n    pub fn from_number(n: i32) -> Self {{\n        match n {{");
        for v in e.values() {
            let _ = writeln!(out, "            {} => {name}::{},", v.number(), variant_name(e, v.name()));
        }
        let _ = writeln!(out, "            number => {name}::Unrecognized {{ number }},\n        }}\n    }}\n    /// The wire number.\n    pub fn number(self) -> i32 {{\n        match self {{");
        for v in e.values() {
            let _ = writeln!(out, "            {name}::{} => {},", variant_name(e, v.name()), v.number());
        }
        let _ = writeln!(out, "            {name}::Unrecognized {{ number }} => number,\n        }}\n    }}\n}}\n");
    }

    for m in &messages {
        let name = m.name();
        let pbn = sanitize(name.to_upper_camel_case());
        let (plain, oneofs) = fields_of(m);
        // Oneof enums.
        for o in &oneofs {
            let _ = writeln!(
                out,
                "/// One of the `{}` oneof of `{}`.\n#[derive(Clone, Debug, PartialEq, uniffi::Enum)]\npub enum {} {{",
                o.rust,
                m.full_name(),
                o.name
            );
            for f in &o.members {
                let _ = writeln!(out, "    {} {{ {}: {} }},", f.name.to_upper_camel_case(), f.rust, f.ty.rust());
            }
            out.push_str("}\n\n");
        }
        // The record.
        let _ =
            writeln!(out, "/// The `{}` message.\n#[derive(Clone, Debug, PartialEq, uniffi::Record)]\npub struct {name} {{", m.full_name());
        for f in &plain {
            let default = if f.card == Card::Plain && matches!(f.ty, Ty::Enum(_)) { "" } else { "    #[uniffi(default)]\n" };
            let _ = writeln!(out, "{default}    pub {}: {},", f.rust, field_type(f));
        }
        for o in &oneofs {
            let _ = writeln!(out, "    #[uniffi(default)]\n    pub {}: Option<{}>,", o.rust, o.name);
        }
        out.push_str("}\n\n");

        // prost -> ours
        let _ = writeln!(
            out,
            "impl From<pb::{pbn}> for {name} {{\n    #[allow(unused_variables)]\n    fn from(m: pb::{pbn}) -> Self {{\n        {name} {{"
        );
        for f in &plain {
            let conv = f.ty.from_pb("x");
            let expr = match f.card {
                Card::Plain if f.ty.by_value() => f.ty.from_pb(&format!("m.{}", f.rust)),
                Card::Plain | Card::Optional => format!("m.{}.map(|x| {conv})", f.rust),
                Card::Repeated => format!("m.{}.into_iter().map(|x| {conv}).collect()", f.rust),
                Card::Map => format!("m.{}.into_iter().map(|(k, x)| (k, {conv})).collect()", f.rust),
            };
            let _ = writeln!(out, "            {}: {expr},", f.rust);
        }
        for o in &oneofs {
            let _ = writeln!(out, "            {}: m.{}.map(|v| match v {{", o.rust, o.rust);
            for f in &o.members {
                let v = f.name.to_upper_camel_case();
                let _ = writeln!(out, "                {}::{v}(x) => {}::{v} {{ {}: {} }},", o.pb_path, o.name, f.rust, f.ty.from_pb("x"));
            }
            out.push_str("            }),\n");
        }
        out.push_str("        }\n    }\n}\n\n");

        // ours -> prost
        let _ = writeln!(
            out,
            "impl {name} {{\n    /// The prost value, checking the JSON texts and times; `at` is this value's JSON path.\n    #[allow(unused_variables)]\n    pub(crate) fn into_pb(self, at: &rt::Path<'_>) -> Result<pb::{pbn}, A2aError> {{\n        Ok(pb::{pbn} {{"
        );
        for f in &plain {
            let here = format!("at.field({:?})", f.json);
            let conv = f.ty.to_pb("x", "here");
            let expr = match f.card {
                Card::Plain if f.ty.by_value() => {
                    let c = f.ty.to_pb(&format!("self.{}", f.rust), "here");
                    if c.contains("here") {
                        format!("{{ let here = {here}; {c} }}")
                    } else {
                        c
                    }
                }
                Card::Plain | Card::Optional => format!("match self.{} {{ Some(x) => {{ let here = {here}; Some({conv}) }} None => None }}", f.rust),
                Card::Repeated => format!(
                    "{{ let base = {here}; self.{}.into_iter().enumerate().map(|(i, x)| -> Result<_, A2aError> {{ let here = base.index(i); Ok({conv}) }}).collect::<Result<_, _>>()? }}",
                    f.rust
                ),
                Card::Map => format!(
                    "{{ let base = {here}; self.{}.into_iter().map(|(k, x)| -> Result<_, A2aError> {{ let here = base.key(&k); Ok((k.clone(), {conv})) }}).collect::<Result<_, _>>()? }}",
                    f.rust
                ),
            };
            let _ = writeln!(out, "            {}: {expr},", f.rust);
        }
        for o in &oneofs {
            let _ = writeln!(out, "            {}: match self.{} {{\n                None => None,", o.rust, o.rust);
            for f in &o.members {
                let v = f.name.to_upper_camel_case();
                let _ = writeln!(
                    out,
                    "                Some({}::{v} {{ {r} }}) => {{ let here = at.field({:?}); Some({}::{v}({})) }}",
                    o.name,
                    f.json,
                    o.pb_path,
                    f.ty.to_pb(&f.rust, "here"),
                    r = f.rust
                );
            }
            out.push_str("            },\n");
        }
        out.push_str("        })\n    }\n}\n\n");
    }

    // The codec entry points, one set per message.
    for m in &messages {
        let name = m.name();
        let pbn = sanitize(name.to_upper_camel_case());
        let snake = name.to_snake_case();
        let _ = writeln!(
            out,
            "/// Decodes a `{full}` from ProtoJSON and validates it (errors name the JSON path).\n#[uniffi::export]\npub fn decode_{snake}_json(json: String) -> Result<{name}, A2aError> {{\n    rt::decode_json::<pb::{pbn}>(json.as_bytes()).map({name}::from)\n}}\n\n\
             /// Encodes a `{full}` as ProtoJSON (validated first).\n#[uniffi::export]\npub fn encode_{snake}_json(value: {name}) -> Result<String, A2aError> {{\n    rt::encode_json(&value.into_pb(&rt::Path::ROOT)?)\n}}\n\n\
             /// Decodes a `{full}` from protobuf and validates it.\n#[uniffi::export]\npub fn decode_{snake}_protobuf(bytes: Vec<u8>) -> Result<{name}, A2aError> {{\n    rt::decode_protobuf::<pb::{pbn}>(&bytes).map({name}::from)\n}}\n\n\
             /// Encodes a `{full}` as protobuf (validated first).\n#[uniffi::export]\npub fn encode_{snake}_protobuf(value: {name}) -> Result<Vec<u8>, A2aError> {{\n    rt::encode_protobuf(&value.into_pb(&rt::Path::ROOT)?)\n}}\n",
            full = m.full_name()
        );
    }
    // Any message by its full name: `decodeJson("lf.a2a.v1.Task", json)` gives an
    // `AnyMessage.Task`, for code that reads the type from the wire (vectors, proxies).
    out.push_str("/// A message of any `lf.a2a.v1` type (a sealed class in Kotlin), for code that knows the\n/// type by its proto name only.\n#[derive(Clone, Debug, PartialEq, uniffi::Enum)]\npub enum AnyMessage {\n");
    for m in &messages {
        let _ = writeln!(out, "    {} {{ value: {} }},", m.name().to_upper_camel_case(), m.name());
    }
    out.push_str("}\n\n");
    let arms = |f: &dyn Fn(&MessageDescriptor) -> String| messages.iter().map(f).collect::<String>();
    let _ = writeln!(
        out,
        "/// Decodes the message named `type_name` (`lf.a2a.v1.Task`) from ProtoJSON and validates it.\n#[uniffi::export]\npub fn decode_json(type_name: String, json: String) -> Result<AnyMessage, A2aError> {{\n    match type_name.as_str() {{\n{}        _ => Err(rt::unknown_type(&type_name)),\n    }}\n}}\n",
        arms(&|m| format!("        {:?} => Ok(AnyMessage::{} {{ value: rt::decode_json::<pb::{}>(json.as_bytes())?.into() }}),\n", m.full_name(), m.name().to_upper_camel_case(), sanitize(m.name().to_upper_camel_case())))
    );
    let _ = writeln!(
        out,
        "/// Decodes the message named `type_name` from protobuf and validates it.\n#[uniffi::export]\npub fn decode_protobuf(type_name: String, bytes: Vec<u8>) -> Result<AnyMessage, A2aError> {{\n    match type_name.as_str() {{\n{}        _ => Err(rt::unknown_type(&type_name)),\n    }}\n}}\n",
        arms(&|m| format!("        {:?} => Ok(AnyMessage::{} {{ value: rt::decode_protobuf::<pb::{}>(&bytes)?.into() }}),\n", m.full_name(), m.name().to_upper_camel_case(), sanitize(m.name().to_upper_camel_case())))
    );
    let _ = writeln!(
        out,
        "/// Encodes any message as ProtoJSON.\n#[uniffi::export]\npub fn encode_json(message: AnyMessage) -> Result<String, A2aError> {{\n    match message {{\n{}    }}\n}}\n",
        arms(&|m| format!("        AnyMessage::{} {{ value }} => rt::encode_json(&value.into_pb(&rt::Path::ROOT)?),\n", m.name().to_upper_camel_case()))
    );
    let _ = writeln!(
        out,
        "/// Encodes any message as protobuf.\n#[uniffi::export]\npub fn encode_protobuf(message: AnyMessage) -> Result<Vec<u8>, A2aError> {{\n    match message {{\n{}    }}\n}}\n",
        arms(&|m| format!("        AnyMessage::{} {{ value }} => rt::encode_protobuf(&value.into_pb(&rt::Path::ROOT)?),\n", m.name().to_upper_camel_case()))
    );
    let _ = writeln!(
        out,
        "/// The full proto name of a message's type (`lf.a2a.v1.Task`).\n#[uniffi::export]\npub fn type_name(message: &AnyMessage) -> String {{\n    match message {{\n{}    }}\n}}\n",
        arms(&|m| format!("        AnyMessage::{} {{ .. }} => {:?}.to_string(),\n", m.name().to_upper_camel_case(), m.full_name()))
    );
    out
}
