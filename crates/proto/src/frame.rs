//! HBase's RPC framing (docs/design/rpc.md): the connection preamble, the connection header,
//! and length-prefixed calls and responses whose parts are varint-delimited protobufs.

use std::io::{self, Read};

use basalt_common::Bytes;
use prost::Message;

use crate::pb::{
    CellBlockMeta, ConnectionHeader, ExceptionResponse, RequestHeader, ResponseHeader,
};

/// The preamble's magic.
pub const MAGIC: &[u8; 4] = b"HBas";
/// The RPC version HBase 2.x sends.
pub const VERSION: u8 = 0;
/// Authentication `SIMPLE` (the only one Basalt accepts).
pub const AUTH_SIMPLE: u8 = 80;
/// Kerberos (SASL GSSAPI, HBase's `AuthMethod.KERBEROS`): SASL tokens follow the preamble.
pub const AUTH_KERBEROS: u8 = 81;

/// Why a frame could not be read.
#[derive(Debug)]
pub enum FrameError {
    /// The peer closed the connection between calls.
    Closed,
    Io(io::Error),
    /// A length past the configured limit.
    TooLarge {
        len: usize,
        limit: usize,
    },
    Malformed(String),
}

impl std::fmt::Display for FrameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FrameError::Closed => write!(f, "connection closed"),
            FrameError::Io(e) => write!(f, "I/O error: {e}"),
            FrameError::TooLarge { len, limit } => {
                write!(f, "a frame of {len} bytes is over the limit of {limit}")
            }
            FrameError::Malformed(m) => write!(f, "malformed frame: {m}"),
        }
    }
}

impl std::error::Error for FrameError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            FrameError::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<io::Error> for FrameError {
    fn from(e: io::Error) -> Self {
        if e.kind() == io::ErrorKind::UnexpectedEof {
            FrameError::Malformed("truncated frame".into())
        } else {
            FrameError::Io(e)
        }
    }
}

fn malformed(what: impl Into<String>) -> FrameError {
    FrameError::Malformed(what.into())
}

/// The preamble of HBase 2.6's RpcConnectionRegistry asking for the cluster id alone: the
/// server answers with a GetConnectionRegistryResponse (call id -1) and closes.
pub const REGISTRY_PREAMBLE: &[u8; 6] = b"Regist";

/// Reads and checks the 6-byte preamble: `HBas`, version 0, and SIMPLE or KERBEROS
/// authentication, which it returns ([`AUTH_SIMPLE`], [`AUTH_KERBEROS`]).
pub fn read_preamble(r: &mut impl Read) -> Result<u8, FrameError> {
    check_preamble(&read_preamble_bytes(r)?)
}

/// The preamble's 6 bytes, unchecked; `Closed` if the stream ends before the first.
pub fn read_preamble_bytes(r: &mut impl Read) -> Result<[u8; 6], FrameError> {
    let mut p = [0u8; 6];
    let mut got = 0;
    while got < p.len() {
        match r.read(&mut p[got..])? {
            0 if got == 0 => return Err(FrameError::Closed),
            0 => return Err(malformed("truncated preamble")),
            n => got += n,
        }
    }
    Ok(p)
}

/// Checks a preamble (see [`read_preamble`]).
pub fn check_preamble(p: &[u8; 6]) -> Result<u8, FrameError> {
    if &p[..4] != MAGIC {
        return Err(malformed(format!(
            "not an HBase RPC connection (preamble {:?})",
            String::from_utf8_lossy(&p[..4])
        )));
    }
    if p[4] != VERSION {
        return Err(malformed(format!("unsupported RPC version {}", p[4])));
    }
    if p[5] != AUTH_SIMPLE && p[5] != AUTH_KERBEROS {
        return Err(malformed(format!(
            "unsupported authentication {} (SIMPLE, 80, or KERBEROS, 81)",
            p[5]
        )));
    }
    Ok(p[5])
}

/// A 4-byte big-endian length, checked against `limit`; `Closed` if the stream ends before it.
fn read_length(r: &mut impl Read, limit: usize) -> Result<usize, FrameError> {
    let mut len = [0u8; 4];
    let mut got = 0;
    while got < 4 {
        match r.read(&mut len[got..])? {
            0 if got == 0 => return Err(FrameError::Closed),
            0 => return Err(malformed("truncated length")),
            n => got += n,
        }
    }
    let len = u32::from_be_bytes(len) as usize;
    if len > limit {
        return Err(FrameError::TooLarge { len, limit });
    }
    Ok(len)
}

fn read_bytes(r: &mut impl Read, len: usize) -> Result<Vec<u8>, FrameError> {
    let mut buf = vec![0u8; len];
    r.read_exact(&mut buf)?;
    Ok(buf)
}

/// The connection header: a 4-byte length, then the message (not delimited).
pub fn read_connection_header(
    r: &mut impl Read,
    limit: usize,
) -> Result<ConnectionHeader, FrameError> {
    let len = read_length(r, limit)?;
    let bytes = read_bytes(r, len)?;
    ConnectionHeader::decode(&bytes[..]).map_err(|e| malformed(format!("connection header: {e}")))
}

/// One call as read: its header, its parameter message's bytes, and a cell block if any.
#[derive(Debug)]
pub struct Call {
    pub header: RequestHeader,
    /// The parameter and the cell block are slices of the frame, not copies.
    pub param: Option<Bytes>,
    pub cell_block: Bytes,
}

/// Reads one call: a 4-byte total length, the delimited header, the delimited parameter if
/// the header says one follows, and the rest as a cell block.
pub fn read_call(r: &mut impl Read, limit: usize) -> Result<Call, FrameError> {
    let len = read_length(r, limit)?;
    let bytes = Bytes::from(read_bytes(r, len)?);
    let mut buf = &bytes[..];
    let header = RequestHeader::decode_length_delimited(&mut buf)
        .map_err(|e| malformed(format!("request header: {e}")))?;
    let param = if header.request_param() {
        let n = prost::encoding::decode_varint(&mut buf)
            .map_err(|e| malformed(format!("parameter length: {e}")))?;
        // Lenient, as HBase is: a client that mis-encodes the length (hbase-driver writes
        // lengths of 128 or more wrongly) gets the rest of the frame, which the total length
        // bounds.
        let n = usize::try_from(n).unwrap_or(usize::MAX).min(buf.len());
        let (param, rest) = buf.split_at(n);
        buf = rest;
        Some(bytes.slice_ref(param))
    } else {
        None
    };
    Ok(Call {
        header,
        param,
        cell_block: bytes.slice_ref(buf),
    })
}

/// A response frame: the total length, the delimited header, and the delimited message (or
/// the exception in the header).
pub fn encode_response(call_id: u32, outcome: Result<Vec<u8>, ExceptionResponse>) -> Vec<u8> {
    let mut frame = Vec::new();
    append_response(&mut frame, call_id, outcome);
    frame
}

/// Appends a response frame (as [`encode_response`] makes it) to `out`.
pub fn append_response(
    out: &mut Vec<u8>,
    call_id: u32,
    outcome: Result<Vec<u8>, ExceptionResponse>,
) {
    let (exception, message) = match outcome {
        Ok(m) => (None, Some(m)),
        Err(e) => (Some(e), None),
    };
    let header = ResponseHeader {
        call_id: Some(call_id),
        exception,
        cell_block_meta: None,
    };
    let start = out.len();
    out.extend_from_slice(&[0; 4]);
    out.reserve(64 + message.as_ref().map_or(0, Vec::len));
    // Encoding into a Vec cannot fail.
    let _ = header.encode_length_delimited(out);
    if let Some(m) = message {
        prost::encoding::encode_varint(m.len() as u64, out);
        out.extend_from_slice(&m);
    }
    let len = u32::try_from(out.len() - start - 4).unwrap_or(u32::MAX);
    out[start..start + 4].copy_from_slice(&len.to_be_bytes());
}

/// Whether `buf` starts with a whole frame (its length and that many bytes).
pub fn holds_whole_frame(buf: &[u8]) -> bool {
    match buf.first_chunk::<4>() {
        Some(len) => buf.len() - 4 >= u32::from_be_bytes(*len) as usize,
        None => false,
    }
}

/// A call frame, as a client writes it.
pub fn encode_call(call_id: u32, method: &str, param: &impl Message) -> Vec<u8> {
    encode_call_with_cells(call_id, method, param, &[])
}

/// A call frame whose mutations' cells follow the parameter as a cell block (see
/// `cellblock`), given in parts that are written one after the other; an empty block is left
/// out.
pub fn encode_call_with_cells(
    call_id: u32,
    method: &str,
    param: &impl Message,
    cell_block: &[&[u8]],
) -> Vec<u8> {
    let cells: usize = cell_block.iter().map(|part| part.len()).sum();
    let header = RequestHeader {
        call_id: Some(call_id),
        method_name: Some(method.to_owned()),
        request_param: Some(true),
        cell_block_meta: (cells > 0).then(|| CellBlockMeta {
            length: u32::try_from(cells).ok(),
        }),
        ..RequestHeader::default()
    };
    let delimited = |len: usize| prost::length_delimiter_len(len) + len;
    let body = delimited(header.encoded_len()) + delimited(param.encoded_len()) + cells;
    let mut frame = Vec::with_capacity(4 + body);
    frame.extend_from_slice(&u32::try_from(body).unwrap_or(u32::MAX).to_be_bytes());
    // Encoding into a Vec cannot fail.
    let _ = header.encode_length_delimited(&mut frame);
    let _ = param.encode_length_delimited(&mut frame);
    for part in cell_block {
        frame.extend_from_slice(part);
    }
    frame
}

/// The preamble and connection header a client sends first.
pub fn encode_connection_start(header: &ConnectionHeader) -> Vec<u8> {
    let mut out = encode_preamble(AUTH_SIMPLE);
    out.extend_from_slice(&encode_connection_header(header));
    out
}

/// The 6-byte preamble naming authentication `auth`.
pub fn encode_preamble(auth: u8) -> Vec<u8> {
    let mut out = Vec::with_capacity(6);
    out.extend_from_slice(MAGIC);
    out.push(VERSION);
    out.push(auth);
    out
}

/// The connection header: a 4-byte length, then the message (what follows the preamble, or
/// a SASL exchange).
pub fn encode_connection_header(header: &ConnectionHeader) -> Vec<u8> {
    let mut out = Vec::new();
    let body = header.encode_to_vec();
    out.extend_from_slice(&u32::try_from(body.len()).unwrap_or(u32::MAX).to_be_bytes());
    out.extend_from_slice(&body);
    out
}

/// Reads one response frame: its header and message bytes (none if it carries an exception).
pub fn read_response(
    r: &mut impl Read,
    limit: usize,
) -> Result<(ResponseHeader, Option<Vec<u8>>), FrameError> {
    let len = read_length(r, limit)?;
    decode_response(&read_bytes(r, len)?)
}

/// One response frame's body (what follows its 4-byte length): its header and message bytes
/// (none if it carries an exception).
pub fn decode_response(bytes: &[u8]) -> Result<(ResponseHeader, Option<Vec<u8>>), FrameError> {
    let mut buf = bytes;
    let header = ResponseHeader::decode_length_delimited(&mut buf)
        .map_err(|e| malformed(format!("response header: {e}")))?;
    if header.exception.is_some() || buf.is_empty() {
        return Ok((header, None));
    }
    let n = prost::encoding::decode_varint(&mut buf)
        .map_err(|e| malformed(format!("message length: {e}")))?;
    let n = usize::try_from(n).unwrap_or(usize::MAX).min(buf.len());
    Ok((header, Some(buf[..n].to_vec())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pb::GetRequest;

    #[test]
    fn a_whole_frame_is_its_length_and_that_many_bytes() {
        let frame = encode_response(7, Ok(vec![1, 2, 3]));
        assert!(holds_whole_frame(&frame));
        let mut two = frame.clone();
        two.extend_from_slice(&frame[..2]);
        assert!(holds_whole_frame(&two));
        for cut in 0..frame.len() {
            assert!(!holds_whole_frame(&frame[..cut]), "{cut} bytes");
        }
    }

    #[test]
    fn calls_and_responses_round_trip() {
        let param = GetRequest::default();
        let frame = encode_call(7, "Get", &param);
        let call = read_call(&mut &frame[..], 1 << 20).expect("call");
        assert_eq!(call.header.call_id, Some(7));
        assert_eq!(call.header.method_name.as_deref(), Some("Get"));
        assert!(call.param.is_some());
        assert!(call.cell_block.is_empty());
        let resp = encode_response(7, Ok(vec![8, 1]));
        let (h, m) = read_response(&mut &resp[..], 1 << 20).expect("response");
        assert_eq!(h.call_id, Some(7));
        assert_eq!(m.as_deref(), Some(&[8u8, 1][..]));
        let err = encode_response(
            8,
            Err(ExceptionResponse {
                exception_class_name: Some("x".into()),
                ..ExceptionResponse::default()
            }),
        );
        let (h, m) = read_response(&mut &err[..], 1 << 20).expect("error response");
        assert!(h.exception.is_some() && m.is_none());
    }

    #[test]
    fn bad_frames_are_errors() {
        assert!(matches!(
            read_preamble(&mut &b"GET / HTTP/1.1"[..]),
            Err(FrameError::Malformed(_))
        ));
        // DIGEST (82, delegation tokens) is not served.
        assert!(matches!(
            read_preamble(&mut &b"HBas\x00\x52"[..]),
            Err(FrameError::Malformed(_))
        ));
        assert_eq!(
            read_preamble(&mut &b"HBas\x00\x50"[..]).ok(),
            Some(AUTH_SIMPLE)
        );
        assert_eq!(
            read_preamble(&mut &b"HBas\x00\x51"[..]).ok(),
            Some(AUTH_KERBEROS)
        );
        assert!(matches!(
            read_call(&mut &[0x7f, 0xff, 0xff, 0xff][..], 1 << 20),
            Err(FrameError::TooLarge { .. })
        ));
        assert!(matches!(
            read_call(&mut &[0, 0, 0, 9, 1, 2][..], 1 << 20),
            Err(FrameError::Malformed(_))
        ));
        // A header claiming a parameter longer than the frame: the rest of the frame.
        let mut body = Vec::new();
        let header = RequestHeader {
            request_param: Some(true),
            ..RequestHeader::default()
        };
        let _ = header.encode_length_delimited(&mut body);
        body.extend_from_slice(&[100, 7, 7]);
        let mut frame = (body.len() as u32).to_be_bytes().to_vec();
        frame.extend_from_slice(&body);
        let call = read_call(&mut &frame[..], 1 << 20).expect("lenient");
        assert_eq!(call.param.as_deref(), Some(&[7u8, 7][..]));
        assert!(matches!(
            read_call(&mut &b""[..], 1 << 20),
            Err(FrameError::Closed)
        ));
    }
}
