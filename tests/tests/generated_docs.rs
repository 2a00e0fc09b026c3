//! Generated documentation must match what it is generated from. Run with
//! `A2A_WIRE_BLESS=1` to rewrite the files after a deliberate change.

use std::path::Path;

fn check(rel: &str, expected: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel);
    if std::env::var_os("A2A_WIRE_BLESS").is_some() {
        std::fs::write(&path, expected).unwrap();
        return;
    }
    let actual = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(actual, expected, "{rel} is out of date: run `A2A_WIRE_BLESS=1 cargo test -p a2a-wire-tests --test generated_docs`");
}

#[test]
fn task_state_diagram_is_generated_from_the_transition_table() {
    let doc = format!(
        "# Task states\n\n\
         Generated from `a2a_wire::task::TRANSITIONS` (the one transition table) by\n\
         `tests/tests/generated_docs.rs`; do not edit by hand.\n\n\
         Active: SUBMITTED, WORKING. Interrupted: INPUT_REQUIRED, AUTH_REQUIRED.\n\
         Terminal: COMPLETED, FAILED, CANCELED, REJECTED (they accept nothing more).\n\n\
         ```mermaid\n{}```\n",
        a2a_wire::task::mermaid_diagram()
    );
    check("docs/task-states.md", &doc);
}

#[test]
fn the_framing_table_in_interop_md_is_generated_from_the_vectors() {
    let (start, end) = ("<!-- framing-table:start -->\n", "<!-- framing-table:end -->");
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../INTEROP.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let (Some(a), Some(b)) = (text.find(start), text.find(end)) else { panic!("INTEROP.md lacks the framing table's markers") };
    let mut table = String::from("| case | rule | RFC | a2a-wire answers |\n|---|---|---|---|\n");
    for c in a2a_wire_tests::framing::cases() {
        table.push_str(&format!("| `{}` | {} | {} | {} |\n", c.name, c.rule, c.rfc, c.answers()));
    }
    let doc = format!("{}{start}{table}{}", &text[..a], &text[b..]);
    check("INTEROP.md", &doc);
}
