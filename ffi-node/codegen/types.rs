//! Generator of the Node package's v1.0 model: the TypeScript types of every `lf.a2a.v1`
//! message and enum in its exact ProtoJSON shape (`model.d.ts`), and the enums as frozen
//! objects of their proto names (`model.js`), from the descriptors of `a2a-wire-proto`.
//!
//! The shape is what the core's ProtoJSON encoder writes and its decoder accepts in canonical
//! form: lowerCamel keys (`json_name`), enums by proto name, bytes as base64 strings,
//! `Timestamp` as an RFC 3339 string, `Struct` as an object, `Value` as any JSON value.
//! Fields the core's validator requires (REQUIRED and not allowed empty) are not optional;
//! every other field is (the encoder leaves out defaults). A oneof becomes a union of one
//! member per field, the others typed `?: never`, so TypeScript narrows on `"text" in part`.
//!
//! Both files are written from one walk, so they cannot disagree; `make node-model` copies
//! them into the package and its tests fail when the committed copies drift. Any proto shape
//! the generator does not know fails the build.

use crate::protojson::{is_required, ALWAYS_EMIT, REQUIRED_BUT_MAY_BE_EMPTY};
use heck::ToShoutySnakeCase;
use prost_reflect::{DescriptorPool, EnumDescriptor, ExtensionDescriptor, FieldDescriptor, Kind, MessageDescriptor};
use std::fmt::Write;

pub const PACKAGE: &str = "lf.a2a.v1";

pub struct Output {
    pub dts: String,
    pub js: String,
}

fn ts_type(kind: &Kind, what: &str) -> String {
    match kind {
        Kind::String | Kind::Bytes => "string".into(),
        Kind::Bool => "boolean".into(),
        Kind::Int32 | Kind::Uint32 | Kind::Sint32 | Kind::Fixed32 | Kind::Sfixed32 | Kind::Float | Kind::Double => "number".into(),
        Kind::Int64 | Kind::Uint64 | Kind::Sint64 | Kind::Fixed64 | Kind::Sfixed64 => "string".into(),
        Kind::Enum(e) if e.package_name() == PACKAGE => e.name().to_string(),
        Kind::Message(m) => match m.full_name() {
            "google.protobuf.Struct" => "JsonObject".into(),
            "google.protobuf.Value" => "JsonValue".into(),
            "google.protobuf.Timestamp" => "Timestamp".into(),
            _ if m.package_name() == PACKAGE && m.parent_message().is_none() => m.name().to_string(),
            n => panic!("node codegen: {what} has message type {n}, which the generator does not support"),
        },
        other => panic!("node codegen: {what} has kind {other:?}, which the generator does not support"),
    }
}

fn field_type(f: &FieldDescriptor, what: &str) -> String {
    if f.is_map() {
        let Kind::Message(entry) = f.kind() else { unreachable!("map fields are entry messages") };
        assert!(matches!(entry.map_entry_key_field().kind(), Kind::String), "{what}: only string map keys are supported");
        format!("{{ [key: string]: {} }}", ts_type(&entry.map_entry_value_field().kind(), what))
    } else if f.is_list() {
        format!("{}[]", ts_type(&f.kind(), what))
    } else {
        ts_type(&f.kind(), what)
    }
}

/// Present in every valid message: the validator refuses it missing or empty (or the encoder
/// always writes it).
fn always_present(f: &FieldDescriptor, behavior: &ExtensionDescriptor) -> bool {
    let what = f.full_name();
    if ALWAYS_EMIT.contains(&what) {
        return true;
    }
    is_required(f, behavior)
        && !REQUIRED_BUT_MAY_BE_EMPTY.iter().any(|(n, _)| *n == what)
        && !f.is_map()
        && !matches!(f.kind(), Kind::Int32 | Kind::Bool)
}

fn doc(out: &mut String, indent: &str, text: &str) {
    writeln!(out, "{indent}/** {text} */").unwrap();
}

fn gen_enum(dts: &mut String, js: &mut String, e: &EnumDescriptor) {
    let name = e.name();
    let prefix = format!("{}_", name.to_shouty_snake_case());
    doc(dts, "", &format!("`{}`: the proto names, as ProtoJSON writes them. `{name}.X` is the value `\"{prefix}X\"`.", e.full_name()));
    writeln!(dts, "export declare const {name}: {{").unwrap();
    writeln!(js, "exports.{name} = Object.freeze({{").unwrap();
    for v in e.values() {
        let short = v.name().strip_prefix(&prefix).unwrap_or(v.name());
        assert!(short.chars().next().is_some_and(|c| c.is_ascii_alphabetic()), "{}: member {} needs a name", e.full_name(), v.name());
        writeln!(dts, "  readonly {short}: \"{}\";", v.name()).unwrap();
        writeln!(js, "  {short}: \"{}\",", v.name()).unwrap();
    }
    writeln!(dts, "}};").unwrap();
    writeln!(js, "}});").unwrap();
    writeln!(dts, "export type {name} = (typeof {name})[keyof typeof {name}];\n").unwrap();
}

fn gen_message(out: &mut String, m: &MessageDescriptor, behavior: &ExtensionDescriptor) {
    let name = m.name();
    let mut plain = String::new();
    let mut oneofs: Vec<(String, Vec<(String, String)>)> = Vec::new();
    for f in m.fields() {
        let what = f.full_name().to_string();
        let ty = field_type(&f, &what);
        match f.containing_oneof() {
            Some(o) if !o.is_synthetic() => {
                let i = match oneofs.iter().position(|(n, _)| n == o.name()) {
                    Some(i) => i,
                    None => {
                        oneofs.push((o.name().to_string(), Vec::new()));
                        oneofs.len() - 1
                    }
                };
                oneofs[i].1.push((f.json_name().to_string(), ty));
            }
            _ => {
                let opt = if always_present(&f, behavior) { "" } else { "?" };
                writeln!(plain, "  {}{opt}: {ty};", f.json_name()).unwrap();
            }
        }
    }
    doc(out, "", &format!("`{}` in its ProtoJSON shape.", m.full_name()));
    if oneofs.is_empty() {
        writeln!(out, "export interface {name} {{\n{plain}}}\n").unwrap();
        return;
    }
    // Fields outside the oneofs, then one union per oneof: exactly one member set.
    write!(out, "export type {name} = {{\n{plain}}}").unwrap();
    for (oneof, members) in &oneofs {
        out.push('\n');
        writeln!(out, "  // oneof {oneof}: exactly one of {}", members.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(", "))
            .unwrap();
        writeln!(out, "  & (").unwrap();
        for (n, ty) in members {
            let others: Vec<String> = members.iter().filter(|(o, _)| o != n).map(|(o, _)| format!("{o}?: never")).collect();
            writeln!(out, "    | {{ {n}: {ty}; {} }}", others.join("; ")).unwrap();
        }
        out.push_str("  )");
    }
    out.push_str(";\n\n");
}

pub fn generate(pool: &DescriptorPool) -> Output {
    let behavior =
        pool.get_extension_by_name("google.api.field_behavior").expect("google/api/field_behavior.proto is imported by a2a.proto");
    let mut enums: Vec<EnumDescriptor> = pool.all_enums().filter(|e| e.package_name() == PACKAGE).collect();
    enums.sort_by(|a, b| a.full_name().cmp(b.full_name()));
    let mut messages: Vec<MessageDescriptor> =
        pool.all_messages().filter(|m| m.package_name() == PACKAGE && !m.is_map_entry() && m.parent_message().is_none()).collect();
    messages.sort_by(|a, b| a.full_name().cmp(b.full_name()));
    assert!(
        pool.all_messages().all(|m| m.package_name() != PACKAGE || m.is_map_entry() || m.parent_message().is_none()),
        "node codegen: nested messages in {PACKAGE} need a naming decision"
    );

    let mut dts = String::new();
    let mut js = String::new();
    let head = "generated by ffi-node/codegen/types.rs from the descriptors of a2a-wire-proto; do not edit (make node-model)";
    writeln!(dts, "// @{head}.\n").unwrap();
    dts.push_str("/** Any JSON value (`google.protobuf.Value`). */\nexport type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };\n");
    dts.push_str("/** A JSON object (`google.protobuf.Struct`). */\nexport type JsonObject = { [key: string]: JsonValue };\n");
    dts.push_str(
        "/** `google.protobuf.Timestamp`: RFC 3339 in UTC, `\"2026-01-02T03:04:05.123Z\"`. */\nexport type Timestamp = string;\n\n",
    );
    writeln!(js, "// @{head}.\n\"use strict\";\n").unwrap();
    for e in &enums {
        gen_enum(&mut dts, &mut js, e);
    }
    for m in &messages {
        gen_message(&mut dts, m, &behavior);
    }
    doc(&mut dts, "", &format!("Every message of `{PACKAGE}` by name: what `decode(name, ...)` returns and `encode(name, ...)` takes."));
    dts.push_str("export interface Model {\n");
    for m in &messages {
        writeln!(dts, "  {0}: {0};", m.name()).unwrap();
    }
    dts.push_str("}\n/** The name of a message of the model. */\nexport type MessageName = keyof Model;\n");
    dts.push_str("/** Every message name of the model, in name order. */\nexport declare const MESSAGE_NAMES: readonly MessageName[];\n");
    js.push_str("exports.MESSAGE_NAMES = Object.freeze([\n");
    for m in &messages {
        writeln!(js, "  \"{}\",", m.name()).unwrap();
    }
    js.push_str("]);\n");
    Output { dts, js }
}
