//! The macros the area files are written in (`operations!`, `calls!`), and `service!`, which
//! joins the areas.
//!
//! `operations!` is an area's table: one line per operation,
//!
//! ```text
//! DeleteNamespace(pb::NamespaceNameRequest) -> pb::ProcedureResponse = delete_namespace,
//!     need need::admin, nonce;
//! ```
//!
//! the operation (`as "getSecurityCapabilities"` where its RPC name is not its own, and any
//! other spelling HBase's clients use, `| "truncateTable"`), the
//! messages, the handler method the master implements, what the caller needs (a function of
//! the request), and optionally `nonce` (the request carries `nonce_group` and `nonce`) and
//! `errors f` (how the RPC service reports its failures, when not as [`from_error`] does).
//! It makes the area's `Request` and `Response` enums, its handler trait, and one unit type
//! per operation implementing [`crate::Operation`].
//!
//! `calls!` is an area's typed calls, each one async body over an [`crate::AsyncCaller`]
//! `c`; it makes a blocking trait (for every [`crate::Caller`]) and an async one (for every
//! [`crate::AsyncCaller`]) with one method per call.
//!
//! [`from_error`]: basalt_proto::from_error

/// Decodes a request or response message, naming what failed (HBase's DoNotRetryIOException
/// over the wire).
pub(crate) fn decode<M: prost::Message + Default>(
    bytes: &[u8],
    what: &str,
) -> basalt_common::Result<M> {
    M::decode(bytes)
        .map_err(|e| basalt_common::Error::Refused(format!("cannot decode {what}: {e}")))
}

/// An operation's RPC name: its own, or the one after `as` (HBase spells a few methods with
/// a lower-case first letter).
macro_rules! wire_name {
    ($Op:ident) => {
        stringify!($Op)
    };
    ($Op:ident, $wire:literal) => {
        $wire
    };
}

/// The nonce of request `$r`, if the options after its `need` say `nonce`.
macro_rules! nonce_of {
    ($r:ident;) => {
        None
    };
    ($r:ident; nonce $($rest:tt)*) => {
        Some(($r.nonce_group.unwrap_or(0), $r.nonce.unwrap_or(0)))
    };
    ($r:ident; $other:tt $($rest:tt)*) => {
        $crate::declare::nonce_of!($r; $($rest)*)
    };
}

/// Error `$e` as the RPC answers it: through the function the options name after `errors`,
/// or as `from_error` does.
macro_rules! exception_of {
    ($e:ident;) => {
        basalt_proto::from_error($e)
    };
    ($e:ident; errors $f:tt $($rest:tt)*) => {
        $f($e)
    };
    ($e:ident; $other:tt $($rest:tt)*) => {
        $crate::declare::exception_of!($e; $($rest)*)
    };
}

macro_rules! operations {
    (
        $(#[$adoc:meta])*
        area $Area:ident, handler $Handler:ident;
        $(
            $(#[$doc:meta])*
            $Op:ident $(as $wire:literal)? $(| $alias:literal)* ($Req:ty) -> $Resp:ty
                = $handle:ident,
                need $need:expr $(, $flag:ident $($arg:path)?)*;
        )*
    ) => {
        /// A request of this area, decoded.
        #[allow(clippy::large_enum_variant, reason = "a request is built once and moved whole")]
        #[derive(Debug, Clone, PartialEq)]
        pub enum Request {
            $($(#[$doc])* $Op($Req),)*
        }

        /// An answer of this area.
        #[allow(clippy::large_enum_variant, reason = "an answer is built once and moved whole")]
        #[derive(Debug, Clone, PartialEq)]
        pub enum Response {
            $($(#[$doc])* $Op($Resp),)*
        }

        $(#[$adoc])*
        pub trait $Handler {
            $($(#[$doc])* fn $handle(&self, request: $Req) -> basalt_common::Result<$Resp>;)*
        }

        impl Request {
            /// `method`'s request from its bytes; None if this area has no such method.
            pub fn decode(method: &str, param: &[u8]) -> Option<basalt_common::Result<Request>> {
                match method {
                    $($crate::declare::wire_name!($Op $(, $wire)?) $(| $alias)* => {
                        Some($crate::declare::decode::<$Req>(param, "the request").map(Request::$Op))
                    })*
                    _ => None,
                }
            }

            /// The RPC method name.
            pub fn name(&self) -> &'static str {
                match self {
                    $(Request::$Op(_) => $crate::declare::wire_name!($Op $(, $wire)?),)*
                }
            }

            /// The request's bytes on the wire.
            pub fn encode(&self) -> Vec<u8> {
                match self {
                    $(Request::$Op(r) => prost::Message::encode_to_vec(r),)*
                }
            }

            /// What the caller needs to make it (None: nothing).
            pub fn need(&self) -> basalt_common::Result<Option<$crate::Need>> {
                match self {
                    $(Request::$Op(r) => ($need)(r),)*
                }
            }

            /// Its nonce (group, nonce), if the operation carries one.
            pub fn nonce(&self) -> Option<(u64, u64)> {
                match self {
                    $(Request::$Op(_r) => $crate::declare::nonce_of!(_r; $($flag $($arg)?)*),)*
                }
            }

            /// Runs the request on `handler`.
            pub fn handle<H: $Handler + ?Sized>(
                self,
                handler: &H,
            ) -> basalt_common::Result<Response> {
                match self {
                    $(Request::$Op(r) => handler.$handle(r).map(Response::$Op),)*
                }
            }

            /// Runs the request on `handler` as the RPC service answers it: the answer's
            /// bytes, or the exception.
            pub fn serve<H: $Handler + ?Sized>(
                self,
                handler: &H,
            ) -> Result<Vec<u8>, basalt_proto::pb::ExceptionResponse> {
                match self {
                    $(Request::$Op(r) => match handler.$handle(r) {
                        Ok(answer) => Ok(prost::Message::encode_to_vec(&answer)),
                        Err(e) => {
                            let e = &e;
                            Err($crate::declare::exception_of!(e; $($flag $($arg)?)*))
                        }
                    },)*
                }
            }
        }

        impl Response {
            /// The answer to `method` from its bytes; None if this area has no such method.
            pub fn decode(method: &str, bytes: &[u8]) -> Option<basalt_common::Result<Response>> {
                match method {
                    $($crate::declare::wire_name!($Op $(, $wire)?) $(| $alias)* => {
                        Some($crate::declare::decode::<$Resp>(bytes, "the response").map(Response::$Op))
                    })*
                    _ => None,
                }
            }

            /// The answer's bytes on the wire.
            pub fn encode(&self) -> Vec<u8> {
                match self {
                    $(Response::$Op(r) => prost::Message::encode_to_vec(r),)*
                }
            }
        }

        $(
            $(#[$doc])*
            #[derive(Debug, Clone, Copy)]
            pub struct $Op;

            impl $crate::Operation for $Op {
                type Request = $Req;
                type Response = $Resp;
                const NAME: &'static str = $crate::declare::wire_name!($Op $(, $wire)?);

                fn request(r: $Req) -> $crate::MasterRequest {
                    $crate::MasterRequest::$Area(Request::$Op(r))
                }

                fn response_of(r: $Resp) -> $crate::MasterResponse {
                    $crate::MasterResponse::$Area(Response::$Op(r))
                }

                fn response(r: $crate::MasterResponse) -> Option<$Resp> {
                    #[allow(irrefutable_let_patterns, reason = "an area may hold one operation")]
                    if let $crate::MasterResponse::$Area(Response::$Op(x)) = r {
                        Some(x)
                    } else {
                        None
                    }
                }
            }
        )*
    };
}

macro_rules! calls {
    (
        $(#[$tdoc:meta])*
        $Blocking:ident, $Async:ident;
        $(
            $(#[$doc:meta])*
            async fn $name:ident($c:ident $(, $arg:ident: $ty:ty)* $(,)?) -> $out:ty $body:block
        )*
    ) => {
        /// The calls' one body each, over any async caller.
        pub(crate) mod bodies {
            #[allow(unused_imports, reason = "each area's bodies use some of its imports")]
            use super::*;

            $(
                pub(crate) async fn $name<C: $crate::AsyncCaller + ?Sized>(
                    $c: &C $(, $arg: $ty)*
                ) -> $out $body
            )*
        }

        $(#[$tdoc])*
        pub trait $Blocking: $crate::Caller {
            $(
                $(#[$doc])*
                fn $name(&self $(, $arg: $ty)*) -> $out {
                    $crate::ready(bodies::$name(&$crate::Now(self) $(, $arg)*))
                }
            )*
        }

        impl<T: $crate::Caller + ?Sized> $Blocking for T {}

        $(#[$tdoc])*
        pub trait $Async: $crate::AsyncCaller {
            $(
                $(#[$doc])*
                fn $name(&self $(, $arg: $ty)*) -> impl std::future::Future<Output = $out> + Send {
                    bodies::$name(self $(, $arg)*)
                }
            )*
        }

        impl<T: $crate::AsyncCaller + ?Sized> $Async for T {}
    };
}

/// The service's request and answer over every area, and its handler.
macro_rules! service {
    ($($Area:ident($module:ident::$Handler:ident)),* $(,)?) => {
        /// A MasterService request, decoded once.
        #[allow(clippy::large_enum_variant, reason = "a request is built once and moved whole")]
        #[derive(Debug, Clone, PartialEq)]
        pub enum MasterRequest {
            $($Area(crate::$module::Request),)*
        }

        /// A MasterService answer.
        #[allow(clippy::large_enum_variant, reason = "an answer is built once and moved whole")]
        #[derive(Debug, Clone, PartialEq)]
        pub enum MasterResponse {
            $($Area(crate::$module::Response),)*
        }

        /// Everything the master serves: every area's handler.
        pub trait MasterHandler: $(crate::$module::$Handler +)* {}

        impl<T: $(crate::$module::$Handler +)* ?Sized> MasterHandler for T {}

        impl MasterRequest {
            /// `method`'s request from its bytes; None if MasterService has no such method.
            pub fn decode(method: &str, param: &[u8]) -> Option<basalt_common::Result<Self>> {
                $(if let Some(r) = crate::$module::Request::decode(method, param) {
                    return Some(r.map(MasterRequest::$Area));
                })*
                None
            }

            /// The RPC method name.
            pub fn name(&self) -> &'static str {
                match self {
                    $(MasterRequest::$Area(r) => r.name(),)*
                }
            }

            /// The request's bytes on the wire.
            pub fn encode(&self) -> Vec<u8> {
                match self {
                    $(MasterRequest::$Area(r) => r.encode(),)*
                }
            }

            /// What the caller needs to make it (None: nothing).
            pub fn need(&self) -> basalt_common::Result<Option<crate::Need>> {
                match self {
                    $(MasterRequest::$Area(r) => r.need(),)*
                }
            }

            /// Its nonce (group, nonce), if the operation carries one.
            pub fn nonce(&self) -> Option<(u64, u64)> {
                match self {
                    $(MasterRequest::$Area(r) => r.nonce(),)*
                }
            }

            /// Runs the request on `handler`.
            pub fn handle<H: MasterHandler + ?Sized>(
                self,
                handler: &H,
            ) -> basalt_common::Result<MasterResponse> {
                match self {
                    $(MasterRequest::$Area(r) => r.handle(handler).map(MasterResponse::$Area),)*
                }
            }

            /// Runs the request on `handler` as the RPC service answers it.
            pub fn serve<H: MasterHandler + ?Sized>(
                self,
                handler: &H,
            ) -> Result<Vec<u8>, basalt_proto::pb::ExceptionResponse> {
                match self {
                    $(MasterRequest::$Area(r) => r.serve(handler),)*
                }
            }
        }

        impl MasterResponse {
            /// The answer to `method` from its bytes.
            pub fn decode(method: &str, bytes: &[u8]) -> basalt_common::Result<Self> {
                $(if let Some(r) = crate::$module::Response::decode(method, bytes) {
                    return r.map(MasterResponse::$Area);
                })*
                Err(basalt_common::Error::Refused(format!(
                    "MasterService has no method {method}"
                )))
            }

            /// The answer's bytes on the wire.
            pub fn encode(&self) -> Vec<u8> {
                match self {
                    $(MasterResponse::$Area(r) => r.encode(),)*
                }
            }
        }
    };
}

pub(crate) use {calls, exception_of, nonce_of, operations, service, wire_name};
