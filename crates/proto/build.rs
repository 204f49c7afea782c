//! Compiles the protobuf definitions in `proto/` (Basalt's own, with HBase's message and field
//! numbers) with protox, a pure-Rust protoc, so the build needs no external compiler.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let files = [
        "rpc.proto",
        "hbase.proto",
        "cell.proto",
        "client.proto",
        "master.proto",
        "admin.proto",
        "filter.proto",
        "zookeeper.proto",
        "snapshot.proto",
        "replication.proto",
        "aggregate.proto",
    ];
    let fds = protox::compile(files, ["proto"])?;
    prost_build::Config::new().compile_fds(fds)?;
    println!("cargo:rerun-if-changed=proto");
    Ok(())
}
