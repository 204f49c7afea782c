//! Compiles `proto/rest.proto`, the REST server's protobuf messages, with protox (a pure-Rust
//! protoc), so the build needs no external compiler.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let fds = protox::compile(["rest.proto"], ["proto"])?;
    prost_build::Config::new().compile_fds(fds)?;
    println!("cargo:rerun-if-changed=proto");
    Ok(())
}
