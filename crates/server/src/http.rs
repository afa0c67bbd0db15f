//! Streamable HTTP at `/mcp` (filled in by the HTTP issue).

use std::time::Duration;

use crate::MobileServer;
use crate::boundary::Boundary;

/// How `--listen` serves.
#[derive(Debug, Clone)]
pub struct HttpConfig {
    /// `[HOST:]PORT`; HOST defaults to 127.0.0.1.
    pub listen: String,
    /// Bearer token every request must carry; required for a non-loopback bind.
    pub auth_token: Option<String>,
    /// Extra accepted Host header values (loopback names are always accepted).
    pub allowed_hosts: Vec<String>,
    /// Accepted browser origins; any other Origin header is refused.
    pub allowed_origins: Vec<String>,
    pub max_body_bytes: usize,
    pub session_idle: Duration,
}

/// Serves until the future is dropped.
pub async fn serve(
    _server: MobileServer,
    config: HttpConfig,
    _boundary: Option<Boundary>,
) -> anyhow::Result<()> {
    anyhow::bail!(
        "--listen {}: Streamable HTTP is not available in this build yet",
        config.listen
    )
}
