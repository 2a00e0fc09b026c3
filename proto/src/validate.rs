//! REQUIRED-field validation (spec §5.7) with JSON paths.
//!
//! Decoding (JSON or protobuf) only checks the *shape* of the data. The rules of the proto's
//! `(google.api.field_behavior) = REQUIRED` annotations and "exactly one member of a oneof"
//! are checked here, on the typed message, so that both wire formats get the same checks and
//! the same error text. The impls are generated from the proto by `codegen/protojson.rs`.
//!
//! A REQUIRED string or bytes field must be non-empty, a REQUIRED enum must not be
//! `*_UNSPECIFIED`, a REQUIRED message must be present and a REQUIRED repeated field needs at
//! least one element. REQUIRED numbers, booleans and maps are not checked (their zero value is
//! legitimate), and three fields are exempt for reasons written next to them in the
//! generator: `ListTasksResponse.tasks`, `ListTasksResponse.nextPageToken`, `AgentCard.skills`.
//!
//! Paths are the JSON paths of the lowerCamelCase names: `message.parts[2]`,
//! `securitySchemes.oidc.openIdConnectSecurityScheme.openIdConnectUrl`.

use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::{self, Write as _};

/// A message type whose REQUIRED fields can be checked.
pub trait Validate {
    /// Appends every violation found in `self` (and its children) to `out`, with paths
    /// relative to `at`.
    fn validate_at(&self, at: &Path<'_>, out: &mut Violations);

    /// Checks the message as a whole; `Ok(())` when nothing is missing.
    fn validate(&self) -> Result<(), Violations> {
        let mut out = Violations::default();
        self.validate_at(&Path::ROOT, &mut out);
        if out.is_empty() {
            Ok(())
        } else {
            Err(out)
        }
    }
}

/// Description of a missing REQUIRED field.
pub const REQUIRED: &str = "required field is missing";
/// Description of a missing REQUIRED enum field.
pub const REQUIRED_ENUM: &str = "required field is missing (the UNSPECIFIED value does not count)";
/// Description of an empty REQUIRED repeated field.
pub const REQUIRED_LIST: &str = "required field needs at least one element";

/// A position in a message, as a linked list on the stack; rendered to text only when a
/// violation is found, so validating a valid message allocates nothing.
#[derive(Clone, Copy, Debug)]
pub struct Path<'a> {
    parent: Option<&'a Path<'a>>,
    seg: Seg<'a>,
}

#[derive(Clone, Copy, Debug)]
enum Seg<'a> {
    Root,
    Field(&'static str),
    Index(usize),
    Key(&'a str),
}

impl<'a> Path<'a> {
    /// The top of a message.
    pub const ROOT: Path<'static> = Path { parent: None, seg: Seg::Root };

    /// A path below a root with a name, e.g. `Path::ROOT.field("params")`.
    pub fn field(&'a self, name: &'static str) -> Path<'a> {
        Path { parent: Some(self), seg: Seg::Field(name) }
    }
    /// Element `i` of the repeated field at `self`.
    pub fn index(&'a self, i: usize) -> Path<'a> {
        Path { parent: Some(self), seg: Seg::Index(i) }
    }
    /// Entry `key` of the map field at `self`.
    pub fn key(&'a self, key: &'a str) -> Path<'a> {
        Path { parent: Some(self), seg: Seg::Key(key) }
    }

    fn write_to(&self, out: &mut String) {
        if let Some(p) = self.parent {
            p.write_to(out);
        }
        match self.seg {
            Seg::Root => {}
            Seg::Field(name) | Seg::Key(name) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(name);
            }
            Seg::Index(i) => {
                // Writing to a String cannot fail.
                let _ = write!(out, "[{i}]");
            }
        }
    }
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        self.write_to(&mut s);
        f.write_str(&s)
    }
}

/// One broken rule: the JSON path of the field and what is wrong with it. Maps directly to
/// `google.rpc.BadRequest.FieldViolation {field, description}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// JSON path, e.g. `message.parts[2]`; empty for the top-level message itself.
    pub field: String,
    /// What is wrong.
    pub description: Cow<'static, str>,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            f.write_str(&self.description)
        } else {
            write!(f, "{}: {}", self.field, self.description)
        }
    }
}

/// The violations found in one message, in document order. At most [`Violations::LIMIT`]
/// are kept, so a hostile message cannot make the report larger than a fixed bound.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Violations {
    list: Vec<Violation>,
    truncated: bool,
}

impl Violations {
    /// How many violations are kept.
    pub const LIMIT: usize = 32;

    /// Records that field `name` of the message at `at` breaks a rule.
    pub fn push(&mut self, at: &Path<'_>, name: &'static str, description: &'static str) {
        self.push_path(&at.field(name), Cow::Borrowed(description));
    }

    /// Records that the message at `at` itself breaks a rule.
    pub fn push_here(&mut self, at: &Path<'_>, description: &'static str) {
        self.push_path(at, Cow::Borrowed(description));
    }

    /// Records a violation with a computed description.
    pub fn push_path(&mut self, at: &Path<'_>, description: Cow<'static, str>) {
        if self.list.len() >= Self::LIMIT {
            self.truncated = true;
            return;
        }
        let mut field = String::new();
        at.write_to(&mut field);
        self.list.push(Violation { field, description });
    }

    /// True when no violation was recorded.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
    /// The recorded violations.
    pub fn as_slice(&self) -> &[Violation] {
        &self.list
    }
    /// True when more than [`Violations::LIMIT`] were found and the rest were dropped.
    pub fn truncated(&self) -> bool {
        self.truncated
    }
    /// Consumes the report.
    pub fn into_vec(self) -> Vec<Violation> {
        self.list
    }
}

impl fmt::Display for Violations {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, v) in self.list.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{v}")?;
        }
        if self.truncated {
            f.write_str("; ...")?;
        }
        Ok(())
    }
}
