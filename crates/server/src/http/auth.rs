//! Layer 2, the bearer token (when one is configured): `Authorization: Bearer <token>`,
//! compared in constant time (SHA-256 digests of both sides, compared with `subtle`, so
//! neither content nor length leaks). Otherwise **401** with `WWW-Authenticate: Bearer`
//! and a JSON-RPC error body.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use http::{HeaderMap, HeaderValue, StatusCode, header};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::{HttpConfig, refusal};

/// The token every request must present, as its digest; `None` accepts every request.
pub(super) struct BearerToken {
    digest: Option<[u8; 32]>,
}

impl BearerToken {
    pub(super) fn new(config: &HttpConfig) -> BearerToken {
        BearerToken {
            digest: config.auth_token.as_deref().map(digest),
        }
    }

    pub(super) fn authorized(&self, headers: &HeaderMap) -> bool {
        let Some(expected) = &self.digest else {
            return true;
        };
        let presented = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| {
                let (scheme, token) = v.trim().split_once(' ')?;
                scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
            });
        // Always hash and compare, so a missing header takes the same path as a wrong one.
        let got = digest(presented.unwrap_or(""));
        presented.is_some() & bool::from(got.ct_eq(expected))
    }
}

fn digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// The layer: refuses a request without the token.
pub(super) async fn layer(
    State(token): State<Arc<BearerToken>>,
    request: Request,
    next: Next,
) -> Response {
    if !token.authorized(request.headers()) {
        let mut response = refusal(
            StatusCode::UNAUTHORIZED,
            "Unauthorized: send the server's token as `Authorization: Bearer <token>`",
        );
        response.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Bearer realm=\"mobile-mcp\""),
        );
        return response;
    }
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use std::net::SocketAddr;
    use std::time::Duration;

    use super::*;

    fn guard(hosts: &[&str], origins: &[&str], token: Option<&str>, local: &str) -> BearerToken {
        let local: SocketAddr = local.parse().unwrap();
        BearerToken::new(&HttpConfig {
            listen: local.to_string(),
            auth_token: token.map(str::to_string),
            allowed_hosts: hosts.iter().map(|s| s.to_string()).collect(),
            allowed_origins: origins.iter().map(|s| s.to_string()).collect(),
            max_body_bytes: 10,
            session_idle: Duration::from_secs(1),
            max_sessions: 1,
            header_timeout: Duration::from_secs(1),
            idle_timeout: Duration::from_secs(1),
            max_connections: 1,
        })
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn bearer_token_must_match_exactly() {
        let g = guard(&[], &[], Some("s3cret"), "127.0.0.1:1");
        assert!(g.authorized(&headers(&[("authorization", "Bearer s3cret")])));
        assert!(g.authorized(&headers(&[("authorization", "bearer s3cret")])));
        for bad in [
            "Bearer s3cre",
            "Bearer s3cret2",
            "Basic s3cret",
            "s3cret",
            "Bearer ",
        ] {
            assert!(!g.authorized(&headers(&[("authorization", bad)])), "{bad}");
        }
        assert!(!g.authorized(&HeaderMap::new()));
        assert!(guard(&[], &[], None, "127.0.0.1:1").authorized(&HeaderMap::new()));
    }
}
