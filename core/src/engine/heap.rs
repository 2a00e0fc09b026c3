//! What a task held in memory costs, estimated from its shape: every heap block (string,
//! vector, map node) with the allocator's rounding and header, so that the working set's
//! bound in bytes is close to the memory it takes (the protobuf size undercounts it several
//! times: a short string is a 24-byte header plus a block, a map entry a share of a node).

use crate::proto::google::protobuf::{value::Kind, ListValue, Struct, Value};
use crate::v1;
use alloc::string::String;
use alloc::vec::Vec;
use core::mem::size_of;

/// A heap block of `n` bytes: rounded up to 16, plus the allocator's 16-byte header.
pub(crate) const fn block(n: usize) -> usize {
    if n == 0 {
        0
    } else {
        ((n + 15) & !15) + 16
    }
}

pub(crate) fn string(s: &String) -> usize {
    block(s.capacity())
}

fn strings(v: &Vec<String>) -> usize {
    block(v.capacity() * size_of::<String>()) + v.iter().map(string).sum::<usize>()
}

/// A BTreeMap node: room for 11 keys and values, and its header.
const fn map_node<K, V>() -> usize {
    block(11 * (size_of::<K>() + size_of::<V>()) + 16)
}

/// The nodes of a BTreeMap of `len` entries (a small map is one whole node; a large one is
/// about two thirds full, 7 entries a node).
pub(crate) const fn map<K, V>(len: usize) -> usize {
    len.div_ceil(7) * map_node::<K, V>()
}

/// One entry's share of a large BTreeMap's nodes.
pub(crate) const fn map_entry<K, V>() -> usize {
    map_node::<K, V>() / 7
}

fn structure(s: &Struct) -> usize {
    map::<String, Value>(s.fields.len()) + s.fields.iter().map(|(k, v)| string(k) + value(v)).sum::<usize>()
}

fn value(v: &Value) -> usize {
    match &v.kind {
        Some(Kind::StringValue(s)) => string(s),
        Some(Kind::StructValue(s)) => structure(s),
        Some(Kind::ListValue(l)) => list(l),
        _ => 0,
    }
}

fn list(l: &ListValue) -> usize {
    block(l.values.capacity() * size_of::<Value>()) + l.values.iter().map(value).sum::<usize>()
}

fn metadata(m: &Option<Struct>) -> usize {
    m.as_ref().map_or(0, structure)
}

fn part(p: &v1::Part) -> usize {
    let content = match &p.content {
        Some(v1::part::Content::Text(s) | v1::part::Content::Url(s)) => string(s),
        Some(v1::part::Content::Raw(b)) => block(b.capacity()),
        Some(v1::part::Content::Data(v)) => value(v),
        None => 0,
    };
    content + string(&p.filename) + string(&p.media_type) + metadata(&p.metadata)
}

fn parts(v: &Vec<v1::Part>) -> usize {
    block(v.capacity() * size_of::<v1::Part>()) + v.iter().map(part).sum::<usize>()
}

pub(crate) fn message(m: &v1::Message) -> usize {
    string(&m.message_id)
        + string(&m.context_id)
        + string(&m.task_id)
        + parts(&m.parts)
        + metadata(&m.metadata)
        + strings(&m.extensions)
        + strings(&m.reference_task_ids)
}

fn artifact(a: &v1::Artifact) -> usize {
    string(&a.artifact_id) + string(&a.name) + string(&a.description) + parts(&a.parts) + metadata(&a.metadata) + strings(&a.extensions)
}

/// The heap a task holds (not counting the `Task` value itself).
pub(crate) fn task(t: &v1::Task) -> usize {
    let status = t.status.as_ref().and_then(|s| s.message.as_ref()).map_or(0, message);
    string(&t.id)
        + string(&t.context_id)
        + status
        + block(t.artifacts.capacity() * size_of::<v1::Artifact>())
        + t.artifacts.iter().map(artifact).sum::<usize>()
        + block(t.history.capacity() * size_of::<v1::Message>())
        + t.history.iter().map(message).sum::<usize>()
        + metadata(&t.metadata)
}

pub(crate) fn push_config(c: &v1::TaskPushNotificationConfig) -> usize {
    string(&c.tenant)
        + string(&c.id)
        + string(&c.task_id)
        + string(&c.url)
        + string(&c.token)
        + c.authentication.as_ref().map_or(0, |a| string(&a.scheme) + string(&a.credentials))
}
