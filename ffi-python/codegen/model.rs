//! Generator of the Python model classes (pyo3) and their stub, from the descriptors of
//! `a2a-wire-proto` (`a2a_wire_proto::FILE_DESCRIPTOR_SET`).
//!
//! For every message of `lf.a2a.v1` it emits one frozen `#[pyclass]` wrapping the prost type,
//! named as in the proto (`Task`, `APIKeySecurityScheme`), with:
//! - a keyword-only constructor and `replace(**changes)` (both through one generated
//!   `set_field` per class, so a value is checked the same way everywhere);
//! - one read-only property per field, named as in the proto (snake_case);
//! - the shared methods (`to_json`, `from_json`, `to_dict`, `from_dict`, `to_protobuf`,
//!   `from_protobuf`, `validate`, `__repr__`, `__eq__`, pickling), which call the hand-written
//!   runtime in `src/model.rs`;
//!
//! For every enum it emits a table the module turns into an `enum.Enum` at import time.
//!
//! The stub (`model.pyi`) is written from the same walk, so it cannot disagree with the
//! classes; `make py-stubs` copies it into `python/a2a_wire/_model.pyi` and the tests fail
//! when the committed copy drifts. Any proto shape the generator does not know fails the
//! build: a new shape must get a decision here.

use heck::{ToShoutySnakeCase, ToSnakeCase, ToUpperCamelCase};
use prost_reflect::{DescriptorPool, EnumDescriptor, Kind, MessageDescriptor};
use std::fmt::Write;

/// The package whose messages and enums become Python classes.
pub const PACKAGE: &str = "lf.a2a.v1";

/// Python keywords and builtins a field name must not shadow (none of the proto's does; the
/// build fails if one ever would).
const PY_RESERVED: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del", "elif", "else", "except",
    "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try",
    "while", "with", "yield", "replace", "validate",
];

pub struct Output {
    pub rust: String,
    pub stub: String,
}

#[derive(Clone)]
enum Ty {
    Str,
    Bool,
    Int32,
    Bytes,
    /// index into the enum table, Python name
    Enum(usize, String),
    /// Python class name (one of ours)
    Msg(String),
    Struct,
    Value,
    Timestamp,
}

impl Ty {
    fn py(&self) -> String {
        match self {
            Ty::Str => "str".into(),
            Ty::Bool => "bool".into(),
            Ty::Int32 => "int".into(),
            Ty::Bytes => "bytes".into(),
            Ty::Enum(_, n) | Ty::Msg(n) => n.clone(),
            Ty::Struct => "dict[str, Any]".into(),
            Ty::Value => "Any".into(),
            Ty::Timestamp => "datetime.datetime".into(),
        }
    }
    /// What the constructor accepts (wider than what the property returns).
    fn py_in(&self) -> String {
        match self {
            Ty::Bytes => "bytes | bytearray | memoryview".into(),
            Ty::Enum(_, n) => format!("{n} | int"),
            Ty::Struct => "Mapping[str, Any]".into(),
            Ty::Timestamp => "datetime.datetime | str".into(),
            other => other.py(),
        }
    }
    /// Expression turning `x` (a `&RustType`) into a `Bound<PyAny>` (inside `PyResult`).
    fn to_py(&self, x: &str) -> String {
        match self {
            Ty::Str => format!("rt::str_to(py, {x})"),
            Ty::Bool => format!("rt::bool_to(py, *{x})"),
            Ty::Int32 => format!("rt::int_to(py, *{x})"),
            Ty::Bytes => format!("rt::bytes_to(py, {x})"),
            Ty::Enum(i, _) => format!("rt::enum_to(py, {i}, *{x})"),
            Ty::Msg(n) => format!("rt::msg_to(py, Py{n}(::core::clone::Clone::clone({x})))"),
            Ty::Struct => format!("rt::struct_to(py, {x})"),
            Ty::Value => format!("rt::value_to(py, {x})"),
            Ty::Timestamp => format!("rt::timestamp_to(py, {x})"),
        }
    }
    /// Expression turning `v` (a `&Bound<PyAny>`, not None) into the Rust value (`PyResult`).
    fn extract(&self, v: &str) -> String {
        match self {
            Ty::Str => format!("rt::str_from({v})"),
            Ty::Bool => format!("rt::bool_from({v})"),
            Ty::Int32 => format!("rt::int_from({v})"),
            Ty::Bytes => format!("rt::bytes_from({v})"),
            Ty::Enum(i, _) => format!("rt::enum_from({i}, {v})"),
            Ty::Msg(n) => format!("rt::msg_from::<Py{n}>({v}).map(|m| m.0)"),
            Ty::Struct => format!("rt::struct_from({v})"),
            Ty::Value => format!("rt::value_from({v})"),
            Ty::Timestamp => format!("rt::timestamp_from({v})"),
        }
    }
    fn repr_default(&self) -> &'static str {
        match self {
            Ty::Str | Ty::Bytes => "is_empty",
            _ => "",
        }
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
    name: String,
    rust: String,
    ty: Ty,
    card: Card,
    /// (rust field of the oneof, enum path, variant) for oneof members
    oneof: Option<(String, String, String, String)>, // (oneof proto name, rust field, enum path, variant)
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

fn rust_msg(m: &MessageDescriptor) -> String {
    format!("v1::{}", sanitize(m.name().to_upper_camel_case()))
}

fn ty_of(kind: &Kind, enums: &[EnumDescriptor], what: &str) -> Ty {
    match kind {
        Kind::String => Ty::Str,
        Kind::Bool => Ty::Bool,
        Kind::Int32 => Ty::Int32,
        Kind::Bytes => Ty::Bytes,
        Kind::Enum(e) => {
            let i = enums
                .iter()
                .position(|x| x.full_name() == e.full_name())
                .unwrap_or_else(|| panic!("{what}: enum {} outside {PACKAGE}", e.full_name()));
            Ty::Enum(i, e.name().to_string())
        }
        Kind::Message(m) => match m.full_name() {
            "google.protobuf.Struct" => Ty::Struct,
            "google.protobuf.Value" => Ty::Value,
            "google.protobuf.Timestamp" => Ty::Timestamp,
            _ if m.package_name() == PACKAGE && m.parent_message().is_none() => Ty::Msg(m.name().to_string()),
            n => panic!("python codegen: {what} has message type {n}, which the generator does not support"),
        },
        other => panic!("python codegen: {what} has kind {other:?}, which the generator does not support"),
    }
}

fn fields_of(m: &MessageDescriptor, enums: &[EnumDescriptor]) -> Vec<Field> {
    let mut out = Vec::new();
    for f in m.fields() {
        let what = format!("{}.{}", m.full_name(), f.name());
        assert!(!PY_RESERVED.contains(&f.name()), "{what}: the field name is reserved in Python; choose a property name");
        let (ty, card) = if f.is_map() {
            let Kind::Message(entry) = f.kind() else { unreachable!("map fields are entry messages") };
            assert!(matches!(entry.map_entry_key_field().kind(), Kind::String), "{what}: only string map keys are supported");
            (ty_of(&entry.map_entry_value_field().kind(), enums, &what), Card::Map)
        } else if f.is_list() {
            (ty_of(&f.kind(), enums, &what), Card::Repeated)
        } else if f.supports_presence() && f.containing_oneof().is_none_or(|o| o.is_synthetic()) {
            (ty_of(&f.kind(), enums, &what), Card::Optional)
        } else {
            (ty_of(&f.kind(), enums, &what), Card::Plain)
        };
        if matches!(card, Card::Repeated | Card::Map) && !matches!(ty, Ty::Str | Ty::Msg(_)) {
            panic!("python codegen: {what}: repeated/map of this type is not supported yet");
        }
        let oneof = match f.containing_oneof() {
            Some(o) if !o.is_synthetic() => Some((
                o.name().to_string(),
                sanitize(o.name().to_snake_case()),
                format!("v1::{}::{}", m.name().to_snake_case(), sanitize(o.name().to_upper_camel_case())),
                sanitize(f.name().to_upper_camel_case()),
            )),
            _ => None,
        };
        out.push(Field { name: f.name().to_string(), rust: sanitize(f.name().to_snake_case()), ty, card, oneof });
    }
    out
}

/// Python member name of an enum value: the value name without the enum's prefix
/// (`TASK_STATE_COMPLETED` -> `COMPLETED`).
fn member_name(e: &EnumDescriptor, value: &str) -> String {
    let prefix = format!("{}_", e.name().to_shouty_snake_case());
    let short = value.strip_prefix(&prefix).unwrap_or(value);
    assert!(short.chars().next().is_some_and(|c| c.is_ascii_alphabetic()), "{}: member {value} needs a name", e.full_name());
    short.to_string()
}

pub fn generate(pool: &DescriptorPool) -> Output {
    let mut enums: Vec<EnumDescriptor> = pool.all_enums().filter(|e| e.package_name() == PACKAGE).collect();
    enums.sort_by(|a, b| a.full_name().cmp(b.full_name()));
    let mut messages: Vec<MessageDescriptor> = pool.all_messages().filter(|m| m.package_name() == PACKAGE && !m.is_map_entry()).collect();
    messages.sort_by(|a, b| a.name().cmp(b.name()));
    for m in &messages {
        assert!(m.parent_message().is_none(), "python codegen: nested message {} needs a Python name", m.full_name());
    }
    for e in &enums {
        assert!(e.parent_message().is_none(), "python codegen: nested enum {} needs a Python name", e.full_name());
    }

    let mut rust = String::new();
    let mut stub = String::new();
    rust.push_str("// @generated by ffi-python/codegen/model.rs from a2a.proto. Do not edit.\n\n");
    stub.push_str(
        "# @generated by ffi-python/codegen/model.rs from a2a.proto (`make py-stubs`). Do not edit.\n\
         # The v1.0 model: one immutable class per message of lf.a2a.v1, one enum per enum.\n\n\
         import datetime\nfrom collections.abc import Mapping, Sequence\nfrom typing import Any\n\n\
         from typing_extensions import Self, final\n\nfrom ._enum import ProtoEnum\n\n",
    );

    // Enums.
    rust.push_str("pub const ENUMS: &[(&str, &str, &[(&str, &str, i32)])] = &[\n");
    for e in &enums {
        let _ = write!(rust, "    ({:?}, {:?}, &[", e.name(), e.full_name());
        let _ = writeln!(stub, "class {}(ProtoEnum):", e.name());
        for v in e.values() {
            let short = member_name(e, v.name());
            let _ = write!(rust, "({:?}, {:?}, {}), ", short, v.name(), v.number());
            let _ = writeln!(stub, "    {short} = {}", v.number());
        }
        rust.push_str("]),\n");
        stub.push('\n');
    }
    rust.push_str("];\n\n");
    for (i, e) in enums.iter().enumerate() {
        let _ = writeln!(
            rust,
            "/// Index of `{}` in [`ENUMS`].\npub const ENUM_{}: usize = {i};",
            e.full_name(),
            e.name().to_shouty_snake_case()
        );
    }

    // Messages.
    let mut register = String::from("pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {\n");
    let mut by_name = String::from(
        "/// The Python class of a v1.0 message, by full proto name.\npub fn class_of<'py>(py: Python<'py>, full: &str) -> Option<Bound<'py, pyo3::types::PyType>> {\n    match full {\n",
    );
    for m in &messages {
        let py = m.name();
        let full = m.full_name();
        let rty = rust_msg(m);
        let fields = fields_of(m, &enums);
        let _ = writeln!(register, "    m.add_class::<Py{py}>()?;");
        let _ = writeln!(by_name, "        {full:?} => Some(py.get_type::<Py{py}>()),");

        // The struct.
        let doc = format!("The `{full}` message (immutable; `replace()` makes changed copies).");
        let _ = writeln!(
            rust,
            "#[doc = {doc:?}]\n#[pyclass(module = \"a2a_wire\", name = {py:?}, frozen, eq)]\n#[derive(Clone, PartialEq, Default)]\npub struct Py{py}(pub {rty});\n"
        );

        // set_field
        let _ = writeln!(
            rust,
            "fn set_{snake}(m: &mut {rty}, key: &str, v: &Bound<'_, PyAny>) -> PyResult<()> {{\n    let none = v.is_none();\n    match key {{",
            snake = py.to_snake_case()
        );
        for f in &fields {
            let at = format!("{py}.{}", f.name);
            let conv = f.ty.extract("v");
            let body = match (&f.oneof, f.card) {
                (Some((_, of, path, variant)), _) => format!(
                    "if none {{ if matches!(m.{of}, Some({path}::{variant}(_))) {{ m.{of} = None; }} }} else {{ m.{of} = Some({path}::{variant}(rt::at({at:?}, {conv})?)); }}"
                ),
                (None, Card::Plain) => format!("m.{r} = if none {{ Default::default() }} else {{ rt::at({at:?}, {conv})? }};", r = f.rust),
                (None, Card::Optional) => format!("m.{r} = if none {{ None }} else {{ Some(rt::at({at:?}, {conv})?) }};", r = f.rust),
                (None, Card::Repeated) => {
                    let item = f.ty.extract("x");
                    format!("m.{r} = if none {{ Vec::new() }} else {{ rt::seq_from({at:?}, v, |x| {item})? }};", r = f.rust)
                }
                (None, Card::Map) => {
                    let item = f.ty.extract("x");
                    format!("m.{r} = if none {{ Default::default() }} else {{ rt::map_from({at:?}, v, |x| {item})? }};", r = f.rust)
                }
            };
            let _ = writeln!(rust, "        {:?} => {{ {body} }}", f.name);
        }
        let _ = writeln!(rust, "        _ => return Err(rt::unknown_field({py:?}, key)),\n    }}\n    Ok(())\n}}\n");

        // oneof groups for the one-member check
        let mut groups: Vec<(String, Vec<String>)> = Vec::new();
        for f in &fields {
            if let Some((o, ..)) = &f.oneof {
                match groups.iter_mut().find(|(n, _)| n == o) {
                    Some((_, v)) => v.push(f.name.clone()),
                    None => groups.push((o.clone(), vec![f.name.clone()])),
                }
            }
        }
        let groups_rs: Vec<String> = groups
            .iter()
            .map(|(o, ms)| format!("({o:?}, &[{}])", ms.iter().map(|x| format!("{x:?}")).collect::<Vec<_>>().join(", ")))
            .collect();

        // pymethods
        let snake = py.to_snake_case();
        let _ = writeln!(
            rust,
            "#[pymethods]\nimpl Py{py} {{\n    #[new]\n    #[pyo3(signature = (**fields))]\n    fn __new__(fields: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {{\n        let mut m = <{rty}>::default();\n        rt::apply({py:?}, &[{groups}], &mut m, fields, set_{snake})?;\n        Ok(Py{py}(m))\n    }}\n\n    /// A copy with the given fields changed (None clears a field).\n    #[pyo3(signature = (**changes))]\n    fn replace(&self, changes: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {{\n        let mut m = self.0.clone();\n        rt::apply({py:?}, &[{groups}], &mut m, changes, set_{snake})?;\n        Ok(Py{py}(m))\n    }}\n",
            groups = groups_rs.join(", ")
        );
        // getters
        for f in &fields {
            let body = match (&f.oneof, f.card) {
                (Some((_, of, path, variant)), _) => {
                    format!("match &self.0.{of} {{ Some({path}::{variant}(x)) => {}, _ => Ok(py.None().into_bound(py)) }}", f.ty.to_py("x"))
                }
                (None, Card::Plain) => f.ty.to_py(&format!("&self.0.{}", f.rust)),
                (None, Card::Optional) => {
                    format!("match &self.0.{} {{ Some(x) => {}, None => Ok(py.None().into_bound(py)) }}", f.rust, f.ty.to_py("x"))
                }
                (None, Card::Repeated) => format!("rt::tuple_to(py, self.0.{}.iter().map(|x| {}))", f.rust, f.ty.to_py("x")),
                (None, Card::Map) => format!("rt::dict_to(py, self.0.{}.iter().map(|(k, x)| (k, {})))", f.rust, f.ty.to_py("x")),
            };
            let _ = writeln!(
                rust,
                "    #[getter]\n    fn {name}<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {{ {body} }}",
                name = f.name
            );
        }
        // repr: the fields that hold something
        let mut repr = String::new();
        for f in &fields {
            let set = match (&f.oneof, f.card) {
                (Some((_, of, path, variant)), _) => format!("matches!(&self.0.{of}, Some({path}::{variant}(_)))"),
                (None, Card::Plain) => match (&f.ty, f.ty.repr_default()) {
                    (_, "is_empty") => format!("!self.0.{}.is_empty()", f.rust),
                    (Ty::Bool, _) => format!("self.0.{}", f.rust),
                    (Ty::Int32 | Ty::Enum(..), _) => format!("self.0.{} != 0", f.rust),
                    _ => "true".to_string(),
                },
                (None, Card::Optional) => format!("self.0.{}.is_some()", f.rust),
                (None, Card::Repeated | Card::Map) => format!("!self.0.{}.is_empty()", f.rust),
            };
            let _ = writeln!(repr, "        if {set} {{ parts.push(({:?}, self.{}(py)?)); }}", f.name, f.name);
        }
        let _ = writeln!(
            rust,
            "    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {{\n        #[allow(unused_mut)]\n        let mut parts: Vec<(&str, Bound<'_, PyAny>)> = Vec::new();\n{repr}        rt::repr({py:?}, &parts)\n    }}\n"
        );
        // shared methods
        let _ = writeln!(
            rust,
            r#"    /// ProtoJSON text (compact, fields in field-number order).
    fn to_json(&self, py: Python<'_>) -> PyResult<String> {{ rt::to_json(py, &self.0) }}
    /// Decodes ProtoJSON (`str` or UTF-8 `bytes`); with `validate`, REQUIRED fields are checked.
    #[classmethod]
    #[pyo3(signature = (data, *, validate = true))]
    fn from_json(_cls: &Bound<'_, pyo3::types::PyType>, data: &Bound<'_, PyAny>, validate: bool) -> PyResult<Self> {{ rt::from_json(data, validate).map(Py{py}) }}
    /// The ProtoJSON as Python values (dict, list, str, int, float, bool, None).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {{ rt::to_dict(py, &self.0) }}
    /// Reads the ProtoJSON form from Python values (what `json.loads` gives).
    #[classmethod]
    #[pyo3(signature = (data, *, validate = true))]
    fn from_dict(_cls: &Bound<'_, pyo3::types::PyType>, data: &Bound<'_, PyAny>, validate: bool) -> PyResult<Self> {{ rt::from_dict(data, validate).map(Py{py}) }}
    /// Protobuf binary (what `SerializeToString()` of the official SDK's classes gives).
    fn to_protobuf<'py>(&self, py: Python<'py>) -> Bound<'py, pyo3::types::PyBytes> {{ rt::to_protobuf(py, &self.0) }}
    /// Decodes protobuf binary.
    #[classmethod]
    #[pyo3(signature = (data, *, validate = true))]
    fn from_protobuf(_cls: &Bound<'_, pyo3::types::PyType>, data: &Bound<'_, PyAny>, validate: bool) -> PyResult<Self> {{ rt::from_protobuf(data, validate).map(Py{py}) }}
    /// Raises `MissingFieldError` naming the first REQUIRED field that is missing.
    fn validate(&self) -> PyResult<()> {{ rt::validate(&self.0) }}
    fn __copy__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {{ slf }}
    fn __deepcopy__<'a>(slf: PyRef<'a, Self>, _memo: &Bound<'_, PyAny>) -> PyRef<'a, Self> {{ slf }}
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, pyo3::types::PyBytes>,))> {{
        let py = slf.py();
        Ok((slf.getattr("from_protobuf")?, (rt::to_protobuf(py, &slf.get().0),)))
    }}
}}
"#
        );

        // The stub.
        let _ = writeln!(stub, "@final\nclass {py}:");
        let _ = writeln!(stub, "    \"\"\"The `{full}` message (immutable; `replace()` makes changed copies).\"\"\"");
        let mut params = Vec::new();
        for f in &fields {
            let (out_t, in_t) = match (&f.oneof, f.card) {
                (Some(_), _) | (None, Card::Optional) => (format!("{} | None", f.ty.py()), format!("{} | None", f.ty.py_in())),
                (None, Card::Plain) => (f.ty.py(), format!("{} | None", f.ty.py_in())),
                (None, Card::Repeated) => (format!("tuple[{}, ...]", f.ty.py()), format!("Sequence[{}] | None", f.ty.py_in())),
                (None, Card::Map) => (format!("dict[str, {}]", f.ty.py()), format!("Mapping[str, {}] | None", f.ty.py_in())),
            };
            let _ = writeln!(stub, "    @property\n    def {}(self) -> {out_t}: ...", f.name);
            params.push(format!("{}: {in_t} = ...", f.name));
        }
        let kw = if params.is_empty() { String::new() } else { format!(", *, {}", params.join(", ")) };
        let _ = writeln!(stub, "    def __new__(cls{kw}) -> Self: ...");
        let _ = writeln!(stub, "    def replace(self{kw}) -> Self: ...");
        stub.push_str(
            "    def to_json(self) -> str: ...\n\
             \x20   @classmethod\n    def from_json(cls, data: str | bytes, *, validate: bool = True) -> Self: ...\n\
             \x20   def to_dict(self) -> dict[str, Any]: ...\n\
             \x20   @classmethod\n    def from_dict(cls, data: Mapping[str, Any], *, validate: bool = True) -> Self: ...\n\
             \x20   def to_protobuf(self) -> bytes: ...\n\
             \x20   @classmethod\n    def from_protobuf(cls, data: bytes | bytearray | memoryview, *, validate: bool = True) -> Self: ...\n\
             \x20   def validate(self) -> None: ...\n\
             \x20   def __copy__(self) -> Self: ...\n\
             \x20   def __deepcopy__(self, memo: Any, /) -> Self: ...\n\
             \x20   def __reduce__(self) -> tuple[Any, tuple[bytes]]: ...\n\
             \x20   def __eq__(self, other: object, /) -> bool: ...\n\
             \x20   __hash__: None  # type: ignore[assignment]\n\n",
        );
    }
    register.push_str("    Ok(())\n}\n");
    let mut names: Vec<String> = enums.iter().map(|e| e.name().to_string()).chain(messages.iter().map(|m| m.name().to_string())).collect();
    names.sort();
    let _ = writeln!(rust, "/// Every generated name (enums and classes), sorted.\npub const NAMES: &[&str] = &{names:?};\n");
    let _ = writeln!(stub, "__all__ = {}\n", format!("{names:?}").replace(", ", ",\n    ").replace("[", "[\n    ").replace("]", ",\n]"));
    by_name.push_str("        _ => None,\n    }\n}\n");
    rust.push_str(&register);
    rust.push_str(&by_name);
    Output { rust, stub }
}
