// A Basalt coprocessor in AssemblyScript: refuses every put that writes the value given as
// `refuse=...` ("bad" unless given). It speaks the module interface directly (no SDK):
// docs/design/coprocessors.md has the exports, the Put message and the reply tags.

const VETO: u8 = 2;

let refused: string = "bad";

// Failed assertions trap (the server unloads the module) instead of importing env.abort.
export function trap(message: string | null, file: string | null, line: u32, column: u32): void {
  unreachable();
}

export function basalt_abi_version(): i32 {
  return 1;
}

export function basalt_alloc(len: i32): usize {
  return heap.alloc(<usize>len);
}

export function basalt_free(ptr: usize, len: i32): void {
  heap.free(ptr);
}

// The attachment's arguments, `k=v,k2=v2`.
export function basalt_init(ptr: usize, len: i32): i64 {
  const args = String.UTF8.decodeUnsafe(ptr, <usize>len);
  heap.free(ptr);
  const pairs = args.split(",");
  for (let i = 0; i < pairs.length; i++) {
    const pair = pairs[i].trim();
    if (pair.startsWith("refuse=")) {
      refused = pair.substring(7);
    }
  }
  return 0;
}

// A message reader over the buffer the server wrote (little-endian; bytes = u32 length + bytes).
class Reader {
  constructor(public at: usize, public end: usize) {}

  u32(): u32 {
    assert(this.at + 4 <= this.end);
    const v = load<u32>(this.at);
    this.at += 4;
    return v;
  }

  skipI64(): void {
    assert(this.at + 8 <= this.end);
    this.at += 8;
  }

  // The address of the next `bytes` field's contents; its length in `this.len`.
  len: u32 = 0;
  bytes(): usize {
    this.len = this.u32();
    const start = this.at;
    assert(start + <usize>this.len <= this.end);
    this.at += <usize>this.len;
    return start;
  }
}

// Whether the `len` bytes at `at` are the refused value.
function isRefused(at: usize, len: u32): bool {
  const value = String.UTF8.encode(refused);
  if (<u32>value.byteLength != len) return false;
  return memory.compare(at, changetype<usize>(value), <usize>len) == 0;
}

// A reply handed to the server: its address and length packed in an i64.
function reply(tag: u8, message: string): i64 {
  const text = String.UTF8.encode(message);
  const len = 1 + text.byteLength;
  const out = heap.alloc(<usize>len);
  store<u8>(out, tag);
  memory.copy(out + 1, changetype<usize>(text), <usize>text.byteLength);
  return (<i64>out << 32) | <i64>len;
}

// Put = row:bytes timestamp:i64 count:u32 (family:bytes qualifier:bytes timestamp:i64 value:bytes)*
export function pre_put(ptr: usize, len: i32): i64 {
  const r = new Reader(ptr, ptr + <usize>len);
  r.bytes();
  r.skipI64();
  const cells = r.u32();
  let veto = false;
  for (let i: u32 = 0; i < cells; i++) {
    r.bytes();
    r.bytes();
    r.skipI64();
    const value = r.bytes();
    if (isRefused(value, r.len)) veto = true;
  }
  heap.free(ptr);
  if (veto) {
    return reply(VETO, "value " + refused + " is refused (an AssemblyScript coprocessor)");
  }
  return 0;
}
