//! Only its test matters (tests/axum.rs).
