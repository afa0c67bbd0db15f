//! TLS for an `https://` farm: rustls with the ring provider, trusting the system's roots
//! (`rustls-native-certs`: the OS store, or `SSL_CERT_FILE`/`SSL_CERT_DIR`) plus the PEM
//! certificates of `--farm-ca-file` (a farm behind an internal CA). The server name checked
//! and sent as SNI is the URL's host. There is no way to skip the check.

use std::path::Path;
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;

/// What the client needs to open TLS connections to one farm.
#[derive(Clone)]
pub(crate) struct Tls {
    connector: TlsConnector,
    name: ServerName<'static>,
    /// The host as the URL gives it, for messages.
    pub(crate) host: String,
}

impl std::fmt::Debug for Tls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Tls({})", self.host)
    }
}

/// Why a TLS connection could not be opened.
#[derive(Debug)]
pub(crate) enum TlsFailure {
    /// The farm's certificate was refused (unknown issuer, wrong name, expired, …).
    Untrusted(String),
    /// Any other failure of the handshake (not TLS at that port, no common version, …).
    Handshake(String),
}

impl Tls {
    /// TLS to `host` (an IP literal may be in brackets), trusting the system's roots and
    /// the certificates in `ca_file`.
    ///
    /// # Errors
    ///
    /// A host that is no server name, a `ca_file` that cannot be read or holds no PEM
    /// certificate, or no root to trust at all.
    pub(crate) fn new(host: &str, ca_file: Option<&Path>) -> Result<Tls, String> {
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        let name = ServerName::try_from(bare.to_string())
            .map_err(|e| format!("{host} is not a host name TLS can check ({e})"))?;
        let mut roots = rustls::RootCertStore::empty();
        let native = rustls_native_certs::load_native_certs();
        for e in &native.errors {
            tracing::debug!("system certificates: {e}");
        }
        let (added, _ignored) = roots.add_parsable_certificates(native.certs);
        tracing::debug!(added, "system root certificates for the farm");
        if let Some(path) = ca_file {
            for cert in read_pem_certs(path)? {
                roots.add(cert).map_err(|e| {
                    format!(
                        "--farm-ca-file {}: a certificate is unusable: {e}",
                        path.display()
                    )
                })?;
            }
        }
        if roots.is_empty() {
            return Err(format!(
                "no root certificate to check {host} with: this system has none; give the farm's CA certificate in PEM with --farm-ca-file"
            ));
        }
        let config = rustls::ClientConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS set-up: {e}"))?
        .with_root_certificates(roots)
        .with_no_client_auth();
        Ok(Tls {
            connector: TlsConnector::from(Arc::new(config)),
            name,
            host: host.to_string(),
        })
    }

    /// The handshake over `tcp`.
    pub(crate) async fn connect(&self, tcp: TcpStream) -> Result<TlsStream<TcpStream>, TlsFailure> {
        self.connector
            .connect(self.name.clone(), tcp)
            .await
            .map_err(|e| classify(&e))
    }
}

/// The certificates of a PEM file (other PEM sections are skipped).
fn read_pem_certs(path: &Path) -> Result<Vec<CertificateDer<'static>>, String> {
    let bytes = std::fs::read(path)
        .map_err(|e| format!("cannot read --farm-ca-file {}: {e}", path.display()))?;
    let certs = CertificateDer::pem_slice_iter(&bytes)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("--farm-ca-file {}: {e}", path.display()))?;
    if certs.is_empty() {
        return Err(format!(
            "--farm-ca-file {}: no PEM certificate (-----BEGIN CERTIFICATE-----) in it",
            path.display()
        ));
    }
    Ok(certs)
}

/// A failed handshake, told apart: a refused certificate, or anything else. tokio-rustls
/// carries rustls's error inside the `io::Error`.
fn classify(e: &std::io::Error) -> TlsFailure {
    match e
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<rustls::Error>())
    {
        Some(rustls::Error::InvalidCertificate(why)) => {
            TlsFailure::Untrusted(certificate_problem(why))
        }
        Some(other) => TlsFailure::Handshake(other.to_string()),
        None => TlsFailure::Handshake(e.to_string()),
    }
}

/// A refused certificate in plain words.
fn certificate_problem(why: &rustls::CertificateError) -> String {
    use rustls::CertificateError as C;
    match why {
        C::UnknownIssuer => "signed by an authority this machine does not trust".into(),
        C::NotValidForName | C::NotValidForNameContext { .. } => {
            "issued for another host name".into()
        }
        C::Expired | C::ExpiredContext { .. } => "expired".into(),
        C::NotValidYet | C::NotValidYetContext { .. } => "not valid yet".into(),
        C::Revoked => "revoked".into(),
        C::BadSignature => "badly signed".into(),
        other => format!("refused ({other:?})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ca_file_without_certificates_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ca.pem");
        std::fs::write(&path, "not a certificate\n").unwrap();
        let e = Tls::new("stf.example.org", Some(&path)).unwrap_err();
        assert!(e.contains("no PEM certificate"), "{e}");
        let e = Tls::new("stf.example.org", Some(&dir.path().join("none.pem"))).unwrap_err();
        assert!(e.contains("cannot read --farm-ca-file"), "{e}");
    }
}
