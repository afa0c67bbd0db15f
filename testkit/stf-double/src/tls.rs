//! The https mode: a CA and a server certificate for `localhost` and `127.0.0.1` made at
//! start (rcgen), served with rustls (ring provider). Real STF serves its API over https
//! from a reverse proxy in front of its HTTP units (STF's `doc/DEPLOYMENT.md`: the proxy
//! role, nginx, the app at `https://stf.example.org/`), so the API is the same over both. Each handshake's server name (SNI) is recorded; a failed
//! handshake never reaches the API.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, KeyUsagePurpose};
use rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::server::TlsStream;

/// The certificates made for one double.
pub(crate) struct Identity {
    /// The CA's certificate, PEM: what a client must trust.
    pub ca_pem: String,
    config: Arc<rustls::ServerConfig>,
}

impl Identity {
    /// A fresh CA and a server certificate it signed for `localhost` and `127.0.0.1`.
    pub(crate) fn new() -> std::io::Result<Identity> {
        let bad = |e: rcgen::Error| std::io::Error::other(e.to_string());
        let ca_key = KeyPair::generate().map_err(bad)?;
        let mut ca = CertificateParams::new(Vec::<String>::new()).map_err(bad)?;
        ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca.distinguished_name
            .push(DnType::CommonName, "stf-double test CA");
        ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let ca_cert = ca.self_signed(&ca_key).map_err(bad)?;
        let issuer = Issuer::from_params(&ca, &ca_key);
        let key = KeyPair::generate().map_err(bad)?;
        let mut leaf =
            CertificateParams::new(vec!["localhost".to_string(), "127.0.0.1".to_string()])
                .map_err(bad)?;
        leaf.distinguished_name
            .push(DnType::CommonName, "localhost");
        let cert = leaf.signed_by(&key, &issuer).map_err(bad)?;
        let config = rustls::ServerConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .map_err(std::io::Error::other)?
        .with_no_client_auth()
        .with_single_cert(
            vec![cert.der().clone(), ca_cert.der().clone()],
            PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der())),
        )
        .map_err(std::io::Error::other)?;
        Ok(Identity {
            ca_pem: ca_cert.pem(),
            config: Arc::new(config),
        })
    }
}

/// A listener whose connections are TLS: each accepted TCP connection shakes hands in a
/// task of its own (a stuck client holds up no other), and the ones that succeed are
/// handed to axum.
pub(crate) struct TlsListener {
    incoming: tokio::sync::mpsc::Receiver<(TlsStream<TcpStream>, SocketAddr)>,
    addr: SocketAddr,
    acceptor: tokio::task::JoinHandle<()>,
}

impl TlsListener {
    /// Serves `identity` on `tcp`; each handshake's server name goes into `names` (empty
    /// when the client sent none).
    pub(crate) fn new(
        tcp: TcpListener,
        addr: SocketAddr,
        identity: &Identity,
        names: Arc<Mutex<Vec<String>>>,
    ) -> TlsListener {
        let tls = TlsAcceptor::from(identity.config.clone());
        let (tx, incoming) = tokio::sync::mpsc::channel(16);
        let acceptor = tokio::spawn(async move {
            loop {
                let Ok((stream, peer)) = tcp.accept().await else {
                    tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                    continue;
                };
                let (tls, tx, names) = (tls.clone(), tx.clone(), names.clone());
                tokio::spawn(async move {
                    let shake = tokio::time::timeout(
                        std::time::Duration::from_secs(10),
                        tls.accept(stream),
                    );
                    if let Ok(Ok(stream)) = shake.await {
                        let name = stream.get_ref().1.server_name().unwrap_or("").to_string();
                        names.lock().unwrap_or_else(|p| p.into_inner()).push(name);
                        let _ = tx.send((stream, peer)).await;
                    }
                });
            }
        });
        TlsListener {
            incoming,
            addr,
            acceptor,
        }
    }
}

impl Drop for TlsListener {
    fn drop(&mut self) {
        self.acceptor.abort();
    }
}

impl axum::serve::Listener for TlsListener {
    type Io = TlsStream<TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        match self.incoming.recv().await {
            Some(conn) => conn,
            None => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> std::io::Result<SocketAddr> {
        Ok(self.addr)
    }
}
