# Sourced by the scripts that compare with RocksDB: installs Debian's RocksDB, its tools
# (db_bench), libclang and GNU time once, builds `basalt` with the `rocksdb` feature, and sets
#   basalt  the binary
# leaving the shell in the repository.
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if ! dpkg -s librocksdb-dev libclang-dev rocksdb-tools time >/dev/null 2>&1; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq librocksdb-dev libclang-dev rocksdb-tools time
fi
export ROCKSDB_LIB_DIR=/usr/lib/x86_64-linux-gnu ROCKSDB_INCLUDE_DIR=/usr/include
cargo build --release -q -p basalt-cli --features rocksdb
basalt=target/release/basalt
