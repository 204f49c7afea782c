//! Kerberos on HBase's native RPC: SASL GSSAPI (RFC 4752) as HBase's `HBaseSaslRpcServer` and
//! `HBaseSaslRpcClient` run it, through MIT Kerberos' GSS-API (`libgssapi`). Built with the
//! `kerberos` feature only: it links `libgssapi_krb5`.
//!
//! After a preamble whose authentication byte is 81 (KERBEROS), and before the connection
//! header, client and server exchange SASL tokens:
//!
//! - the client sends a token as a 4-byte big-endian length and its bytes;
//! - the server answers with a 4-byte status (0 SUCCESS, 1 ERROR), then for SUCCESS a token
//!   (length and bytes), for ERROR two strings (a 4-byte length and UTF-8 each: the Java
//!   exception class and the message), and closes.
//!
//! The tokens: the client's AP-REQ; the server's AP-REP (mutual authentication); an empty
//! token from the client; the server's offer of security layers, wrapped (1: none; 3 more
//! bytes: the largest message it takes); the client's choice (layer 1, a size of 0, and no
//! authorization id), wrapped. The server does not answer the last one: the client goes on to
//! its connection header. Only the "auth" protection (no security layer, HBase's
//! `hbase.rpc.protection=authentication`) is offered; TLS is Basalt's way to encryption.

use std::io::{self, Read};

use libgssapi::context::{ClientCtx, CtxFlags, SecurityContext, ServerCtx};
use libgssapi::credential::{Cred, CredUsage};
use libgssapi::name::Name;
use libgssapi::oid::{GSS_MECH_KRB5, GSS_NT_KRB5_PRINCIPAL, OidSet};

/// The preamble's authentication byte for Kerberos (HBase's `AuthMethod.KERBEROS`).
pub const AUTH_KERBEROS: u8 = 81;

const SUCCESS: u32 = 0;
const ERROR: u32 = 1;
/// No security layer, in the offer and the choice.
const LAYER_NONE: u8 = 1;
/// The largest SASL token read.
const MAX_TOKEN: usize = 64 * 1024;
/// The exception class a failed exchange names (Java's).
pub const SASL_EXCEPTION: &str = "javax.security.sasl.SaslException";

fn sasl_error(what: impl std::fmt::Display) -> io::Error {
    io::Error::new(io::ErrorKind::PermissionDenied, format!("Kerberos: {what}"))
}

fn read_u32(r: &mut impl Read) -> io::Result<u32> {
    let mut b = [0u8; 4];
    r.read_exact(&mut b)?;
    Ok(u32::from_be_bytes(b))
}

fn read_token(r: &mut impl Read) -> io::Result<Vec<u8>> {
    let len = read_u32(r)? as usize;
    if len > MAX_TOKEN {
        return Err(sasl_error(format!("a SASL token of {len} bytes")));
    }
    let mut token = vec![0u8; len];
    r.read_exact(&mut token)?;
    Ok(token)
}

fn token_frame(token: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + token.len());
    out.extend_from_slice(&u32::try_from(token.len()).unwrap_or(u32::MAX).to_be_bytes());
    out.extend_from_slice(token);
    out
}

fn string_frame(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&u32::try_from(s.len()).unwrap_or(u32::MAX).to_be_bytes());
    out.extend_from_slice(s.as_bytes());
}

fn read_string(r: &mut impl Read) -> io::Result<String> {
    let bytes = read_token(r)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

fn krb5_mechs() -> io::Result<OidSet> {
    let mut mechs = OidSet::new();
    mechs.add(GSS_MECH_KRB5).map_err(sasl_error)?;
    Ok(mechs)
}

/// The server side: runs the exchange on a connection whose preamble said KERBEROS, reading
/// from `input` and writing with `send`, as `principal` (a service principal in the keytab
/// `KRB5_KTNAME` names; None: any of them). Returns the client's principal
/// (`alice@REALM`). On failure the client has been told why (an ERROR status).
pub fn accept(
    input: &mut impl Read,
    send: &mut dyn FnMut(&[u8]) -> io::Result<()>,
    principal: Option<&str>,
) -> io::Result<String> {
    match exchange_as_server(input, send, principal) {
        Ok(user) => Ok(user),
        Err(e) => {
            let mut out = ERROR.to_be_bytes().to_vec();
            string_frame(&mut out, SASL_EXCEPTION);
            string_frame(&mut out, &e.to_string());
            let _ = send(&out);
            Err(e)
        }
    }
}

fn exchange_as_server(
    input: &mut impl Read,
    send: &mut dyn FnMut(&[u8]) -> io::Result<()>,
    principal: Option<&str>,
) -> io::Result<String> {
    let cred = match principal {
        None => None,
        Some(p) => {
            let name = Name::new(p.as_bytes(), Some(GSS_NT_KRB5_PRINCIPAL))
                .map_err(|e| sasl_error(format!("bad principal {p:?}: {e}")))?;
            Some(
                Cred::acquire(Some(&name), None, CredUsage::Accept, Some(&krb5_mechs()?))
                    .map_err(|e| sasl_error(format!("no key for {p} (KRB5_KTNAME): {e}")))?,
            )
        }
    };
    let mut ctx = ServerCtx::new(cred);
    let reply = |send: &mut dyn FnMut(&[u8]) -> io::Result<()>, token: &[u8]| {
        let mut out = SUCCESS.to_be_bytes().to_vec();
        out.extend_from_slice(&token_frame(token));
        send(&out)
    };
    // The context: AP-REQ in, AP-REP out (one round with Kerberos).
    while !ctx.is_complete() {
        let token = read_token(input)?;
        let out = ctx
            .step(&token, None)
            .map_err(|e| sasl_error(format!("the client's ticket was refused: {e}")))?;
        reply(send, out.as_deref().unwrap_or_default())?;
    }
    // The client's empty token, then the offer: no security layer, 64 KiB messages.
    let _ = read_token(input)?;
    let offer = ctx
        .wrap(false, &[LAYER_NONE, 0x01, 0x00, 0x00])
        .map_err(sasl_error)?;
    reply(send, &offer)?;
    let choice = ctx
        .unwrap(&read_token(input)?)
        .map_err(|e| sasl_error(format!("the client's choice of layer: {e}")))?;
    let client = ctx.source_name().map_err(sasl_error)?.to_string();
    match choice.first() {
        Some(&layer) if layer & LAYER_NONE != 0 => {}
        _ => {
            return Err(sasl_error(
                "the client asked for a security layer not offered",
            ));
        }
    }
    let authz = String::from_utf8_lossy(choice.get(4..).unwrap_or_default()).into_owned();
    if !authz.is_empty() && authz != client {
        return Err(sasl_error(format!(
            "{client} may not act as {authz} (no proxy users)"
        )));
    }
    Ok(client)
}

/// The client side: after sending a preamble that says KERBEROS, authenticates to the server
/// whose principal is `service` (`hbase/host@REALM`) with the ticket in the default credential
/// cache (`KRB5CCNAME`, from `kinit`), reading from `input` and writing with `send`.
pub fn initiate(
    input: &mut impl Read,
    send: &mut dyn FnMut(&[u8]) -> io::Result<()>,
    service: &str,
) -> io::Result<()> {
    let target = Name::new(service.as_bytes(), Some(GSS_NT_KRB5_PRINCIPAL))
        .map_err(|e| sasl_error(format!("bad server principal {service:?}: {e}")))?;
    let mut ctx = ClientCtx::new(
        None,
        target,
        CtxFlags::GSS_C_MUTUAL_FLAG | CtxFlags::GSS_C_INTEG_FLAG | CtxFlags::GSS_C_SEQUENCE_FLAG,
        Some(GSS_MECH_KRB5),
    );
    let first = ctx
        .step(None, None)
        .map_err(|e| sasl_error(format!("no ticket for {service} (kinit?): {e}")))?;
    send(&token_frame(first.as_deref().unwrap_or_default()))?;
    loop {
        let status = read_u32(input)?;
        if status != SUCCESS {
            let class = read_string(input)?;
            let message = read_string(input)?;
            return Err(sasl_error(format!(
                "the server refused: {class}: {message}"
            )));
        }
        let token = read_token(input)?;
        if !ctx.is_complete() {
            let next = ctx
                .step(Some(&token), None)
                .map_err(|e| sasl_error(format!("the server's answer: {e}")))?;
            // Java's client sends an empty token once its context is established.
            send(&token_frame(next.as_deref().unwrap_or_default()))?;
            continue;
        }
        let offer = ctx
            .unwrap(&token)
            .map_err(|e| sasl_error(format!("the server's offer: {e}")))?;
        if offer.first().is_none_or(|layers| layers & LAYER_NONE == 0) {
            return Err(sasl_error(
                "the server offers only security layers (set hbase.rpc.protection to authentication)",
            ));
        }
        let choice = ctx
            .wrap(false, &[LAYER_NONE, 0, 0, 0])
            .map_err(sasl_error)?;
        send(&token_frame(&choice))?;
        return Ok(());
    }
}
