//! TLS and authentication settings the processes share (flags, and `basalt standalone`'s
//! config file keys, with HBase's names as aliases): one identity per process (served on
//! its ports and shown to the servers it calls, as HBase's one keystore), one set of trusted
//! authorities, and how the native RPC port authenticates its callers.

use std::net::IpAddr;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use basalt_common::acl::{GroupMapping, PrincipalRules};
use basalt_net::tls::{ClientAuth, Identity, TlsClient, rustls};
use basalt_rpc::RpcTls;

/// A process's certificate and whom it trusts.
#[derive(Debug, Clone, Default, PartialEq, clap::Args)]
pub struct TlsArgs {
    /// PEM certificate chain served over TLS on this process's ports and shown to the
    /// servers it calls; the key comes from --tls-key, or from this file (HBase's
    /// hbase.rpc.tls.keystore.location)
    #[arg(long)]
    pub tls_cert: Option<PathBuf>,
    /// The PEM private key of --tls-cert
    #[arg(long, requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// PEM certificates of the authorities trusted: calling a server over the native RPC
    /// uses TLS and verifies its certificate against them; a server verifies client
    /// certificates against them (HBase's hbase.rpc.tls.truststore.location)
    #[arg(long)]
    pub tls_ca: Option<PathBuf>,
}

/// How a native RPC port authenticates its callers.
#[derive(Debug, Clone, Default, PartialEq, clap::Args)]
pub struct AuthArgs {
    /// Client certificates on the RPC port: NONE, WANT or NEED (HBase's
    /// hbase.server.netty.tls.client.auth.mode) [default: NEED with --tls-ca, else NONE]
    #[arg(long)]
    pub tls_client_auth: Option<ClientAuth>,
    /// The RPC port also serves plaintext connections (HBase's
    /// hbase.server.netty.tls.supportplaintext); otherwise only TLS ones
    #[arg(long)]
    pub tls_plaintext: bool,
    /// A rule from a client certificate's CN to the user: `RULE:pattern/replacement/[L|U]`
    /// or `DEFAULT` (the CN itself); repeatable, the first that matches wins [default: DEFAULT]
    #[arg(long = "tls-user-rule")]
    pub tls_user_rules: Vec<String>,
    /// Believe the user a connection names when it shows no certificate (HBase's SIMPLE
    /// authentication) [default: true when listening on loopback only, or with --insecure]
    #[arg(long)]
    pub simple_auth: Option<bool>,
    /// Users' groups (for `@group` grants and superusers): `system` (the groups of the
    /// server's account of that name, Hadoop's default) or `none` [default: system]
    #[arg(long)]
    pub group_mapping: Option<GroupSource>,
    /// Fixed groups that replace a user's system ones: `alice=ops,dev;bob=` (Hadoop's
    /// hadoop.user.group.static.mapping.overrides)
    #[arg(long)]
    pub user_groups: Option<String>,
    /// Kerberos on the RPC port as this service principal (`hbase/host@REALM`), its key in
    /// the keytab KRB5_KTNAME names (HBase's hbase.regionserver.kerberos.principal); needs a
    /// basalt built with --features kerberos
    #[arg(long)]
    pub kerberos_principal: Option<String>,
}

/// Where users' groups come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum GroupSource {
    System,
    None,
}

impl TlsArgs {
    /// Applies a config file's `key = value`; false if the key is not a TLS one.
    pub fn apply(&mut self, key: &str, value: &str) -> bool {
        match key {
            "tls-cert" | "hbase.rpc.tls.keystore.location" => {
                self.tls_cert = Some(PathBuf::from(value));
            }
            "tls-key" => self.tls_key = Some(PathBuf::from(value)),
            "tls-ca" | "hbase.rpc.tls.truststore.location" => {
                self.tls_ca = Some(PathBuf::from(value));
            }
            _ => return false,
        }
        true
    }

    /// The flags that give another process these settings.
    pub fn flags(&self) -> Vec<String> {
        let mut flags = Vec::new();
        for (name, value) in [
            ("--tls-cert", &self.tls_cert),
            ("--tls-key", &self.tls_key),
            ("--tls-ca", &self.tls_ca),
        ] {
            if let Some(v) = value {
                flags.push(name.to_owned());
                flags.push(v.display().to_string());
            }
        }
        flags
    }

    /// Flags given win over `self` (from a config file).
    pub fn merge(&mut self, flags: &TlsArgs) {
        if flags.tls_cert.is_some() {
            self.tls_cert.clone_from(&flags.tls_cert);
            self.tls_key.clone_from(&flags.tls_key);
        }
        if flags.tls_ca.is_some() {
            self.tls_ca.clone_from(&flags.tls_ca);
        }
    }

    fn identity(&self) -> Result<Option<Identity>> {
        let Some(cert) = &self.tls_cert else {
            return Ok(None);
        };
        Identity::load(cert, self.tls_key.as_deref())
            .map(Some)
            .context("loading the TLS certificate")
    }

    /// The server side for HTTP and Thrift listeners (no client certificates), if a
    /// certificate is given.
    pub fn server(&self) -> Result<Option<Arc<rustls::ServerConfig>>> {
        let Some(identity) = self.identity()? else {
            return Ok(None);
        };
        Ok(Some(
            basalt_net::tls::server_config(identity, None, ClientAuth::None)
                .context("loading the TLS certificate")?,
        ))
    }

    /// How this process calls servers over the native RPC: TLS when `--tls-ca` is given,
    /// showing the certificate if one is.
    pub fn client(&self) -> Result<Option<TlsClient>> {
        let Some(ca) = &self.tls_ca else {
            return Ok(None);
        };
        let client = TlsClient::new(ca, self.identity()?)
            .with_context(|| format!("loading the trusted certificates {}", ca.display()))?;
        Ok(Some(client))
    }
}

/// The common name of the first certificate in a PEM file (whom it names), if any.
pub fn certificate_name(path: &std::path::Path) -> Option<String> {
    use rustls::pki_types::pem::PemObject;
    let cert = rustls::pki_types::CertificateDer::pem_file_iter(path)
        .ok()?
        .next()?
        .ok()?;
    basalt_net::tls::common_name(&cert)
}

/// The native RPC port's TLS and authentication, resolved.
#[derive(Debug, Clone)]
pub struct RpcSecurity {
    pub tls: Option<RpcTls>,
    /// Kerberos on the RPC port.
    pub kerberos: Option<basalt_rpc::RpcKerberos>,
    /// Callers' groups.
    pub groups: GroupMapping,
    pub simple_auth: bool,
    /// The common name of this process's own certificate: the servers of a cluster show it
    /// to each other.
    pub server_user: Option<String>,
}

impl RpcSecurity {
    /// Whether every RPC caller is encrypted (TLS) and authenticated (a certificate or
    /// Kerberos): what it takes to listen beyond loopback without `--insecure`.
    pub fn authenticated(&self) -> bool {
        self.tls.as_ref().is_some_and(|t| !t.plaintext) && !self.simple_auth
    }
}

impl AuthArgs {
    /// Applies a config file's `key = value`; false if the key is not one of these.
    pub fn apply(&mut self, key: &str, value: &str) -> Result<bool> {
        let flag = |v: &str| -> Result<bool> {
            v.parse()
                .map_err(|_| anyhow::anyhow!("{key} must be true or false, not {v:?}"))
        };
        match key {
            "tls-client-auth" | "hbase.server.netty.tls.client.auth.mode" => {
                self.tls_client_auth = Some(value.parse().map_err(anyhow::Error::msg)?);
            }
            "tls-plaintext" | "hbase.server.netty.tls.supportplaintext" => {
                self.tls_plaintext = flag(value)?;
            }
            "tls-user-rule" => self.tls_user_rules.push(value.to_owned()),
            "simple-auth" => self.simple_auth = Some(flag(value)?),
            "group-mapping" => {
                self.group_mapping = Some(
                    <GroupSource as clap::ValueEnum>::from_str(value, true)
                        .map_err(anyhow::Error::msg)?,
                );
            }
            "user-groups" | "hadoop.user.group.static.mapping.overrides" => {
                self.user_groups = Some(value.to_owned());
            }
            "kerberos-principal" | "hbase.regionserver.kerberos.principal" => {
                self.kerberos_principal = Some(value.to_owned());
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The flags that give another process these settings.
    pub fn flags(&self) -> Vec<String> {
        let mut flags = Vec::new();
        if let Some(mode) = self.tls_client_auth {
            flags.extend([
                "--tls-client-auth".to_owned(),
                format!("{mode:?}").to_uppercase(),
            ]);
        }
        if self.tls_plaintext {
            flags.push("--tls-plaintext".to_owned());
        }
        for rule in &self.tls_user_rules {
            flags.extend(["--tls-user-rule".to_owned(), rule.clone()]);
        }
        if let Some(simple) = self.simple_auth {
            flags.extend(["--simple-auth".to_owned(), simple.to_string()]);
        }
        if let Some(source) = self.group_mapping {
            flags.extend([
                "--group-mapping".to_owned(),
                format!("{source:?}").to_lowercase(),
            ]);
        }
        if let Some(groups) = &self.user_groups {
            flags.extend(["--user-groups".to_owned(), groups.clone()]);
        }
        if let Some(principal) = &self.kerberos_principal {
            flags.extend(["--kerberos-principal".to_owned(), principal.clone()]);
        }
        flags
    }

    /// Flags given win over `self` (from a config file).
    pub fn merge(&mut self, flags: &AuthArgs) {
        if flags.tls_client_auth.is_some() {
            self.tls_client_auth = flags.tls_client_auth;
        }
        self.tls_plaintext |= flags.tls_plaintext;
        if !flags.tls_user_rules.is_empty() {
            self.tls_user_rules.clone_from(&flags.tls_user_rules);
        }
        if flags.simple_auth.is_some() {
            self.simple_auth = flags.simple_auth;
        }
        if flags.group_mapping.is_some() {
            self.group_mapping = flags.group_mapping;
        }
        if flags.user_groups.is_some() {
            self.user_groups.clone_from(&flags.user_groups);
        }
        if flags.kerberos_principal.is_some() {
            self.kerberos_principal
                .clone_from(&flags.kerberos_principal);
        }
    }

    /// Users' groups as these settings say.
    pub fn groups(&self) -> Result<GroupMapping> {
        let base = match self.group_mapping {
            Some(GroupSource::None) => GroupMapping::none(),
            _ => GroupMapping::default(),
        };
        match &self.user_groups {
            Some(text) => base.with_overrides(text).map_err(anyhow::Error::msg),
            None => Ok(base),
        }
    }

    /// The RPC port's settings for a process listening on `bind` with `tls`; `insecure`:
    /// the operator accepts unauthenticated callers beyond loopback.
    pub fn resolve(&self, tls: &TlsArgs, bind: IpAddr, insecure: bool) -> Result<RpcSecurity> {
        let simple_auth = self.simple_auth.unwrap_or(bind.is_loopback() || insecure);
        let kerberos = self
            .kerberos_principal
            .as_ref()
            .map(|p| basalt_rpc::RpcKerberos {
                principal: Some(p.clone()),
            });
        let client_auth = self.tls_client_auth.unwrap_or(if tls.tls_ca.is_some() {
            ClientAuth::Need
        } else {
            ClientAuth::None
        });
        let Some(identity) = tls.identity()? else {
            if self.tls_client_auth.is_some() || self.tls_plaintext {
                bail!("--tls-client-auth and --tls-plaintext need a certificate (--tls-cert)");
            }
            if !simple_auth && kerberos.is_none() {
                bail!(
                    "refusing to listen on {bind} without TLS: no caller could be \
                     authenticated, and SIMPLE users are not believed beyond loopback; serve TLS \
                     with client certificates (--tls-cert, --tls-ca), bind 127.0.0.1, or pass \
                     --insecure to believe SIMPLE users anyway"
                );
            }
            return Ok(RpcSecurity {
                tls: None,
                kerberos,
                groups: self.groups()?,
                simple_auth,
                server_user: None,
            });
        };
        let server_user = tls.tls_cert.as_deref().and_then(certificate_name);
        let config = basalt_net::tls::server_config(identity, tls.tls_ca.as_deref(), client_auth)
            .context("setting up TLS on the RPC port")?;
        let users = PrincipalRules::parse(&self.tls_user_rules).map_err(anyhow::Error::msg)?;
        if client_auth == ClientAuth::None && !simple_auth && kerberos.is_none() {
            bail!(
                "--simple-auth false with no client certificates (--tls-client-auth NONE) would \
                 let nobody in"
            );
        }
        Ok(RpcSecurity {
            kerberos,
            groups: self.groups()?,
            tls: Some(RpcTls {
                config,
                plaintext: self.tls_plaintext,
                users,
            }),
            simple_auth,
            server_user,
        })
    }
}
