//! Gives the shared library its soname (`liba2a_wire.so.MAJOR`), so a program linked against
//! an installed copy records the name `make install` puts on disk.
fn main() {
    let major = std::env::var("CARGO_PKG_VERSION_MAJOR").unwrap_or_else(|_| String::from("0"));
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,liba2a_wire.so.{major}");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
