//! Layer 1, DNS-rebinding protection: the `Host` must be a loopback name, the bound IP
//! address or an `--allowed-host`; an `Origin`, when present, must be an
//! `--allowed-origin`, or a loopback origin when the server is bound to loopback.
//! Anything else is refused with **403**.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use http::{HeaderMap, StatusCode, header};

use super::{HttpConfig, refusal};

/// One accepted `Host` value: a host and, if given, the only port accepted with it.
#[derive(Debug, Clone, PartialEq)]
struct HostRule {
    host: String,
    port: Option<u16>,
}

/// One accepted `Origin`: scheme, host and port (`None` = any port).
#[derive(Debug, Clone, PartialEq)]
enum OriginRule {
    Null,
    Tuple {
        scheme: String,
        host: String,
        port: Option<u16>,
    },
}

const LOOPBACK_NAMES: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// The accepted `Host` and `Origin` values; built once from the config.
pub(super) struct HostOriginCheck {
    hosts: Vec<HostRule>,
    origins: Vec<OriginRule>,
}

impl HostOriginCheck {
    pub(super) fn new(config: &HttpConfig, local: SocketAddr, loopback: bool) -> HostOriginCheck {
        let mut hosts: Vec<HostRule> = LOOPBACK_NAMES
            .iter()
            .map(|h| HostRule {
                host: (*h).to_string(),
                port: None,
            })
            .collect();
        if !local.ip().is_unspecified() && !local.ip().is_loopback() {
            hosts.push(HostRule {
                host: normalize_host(&local.ip().to_string()),
                port: Some(local.port()),
            });
        }
        for h in &config.allowed_hosts {
            match parse_host_rule(h) {
                Some(rule) => hosts.push(rule),
                None => {
                    tracing::warn!(host = %h, "--allowed-host: not a host or host:port; ignored")
                }
            }
        }
        let mut origins = Vec::new();
        if loopback {
            for scheme in ["http", "https"] {
                for host in LOOPBACK_NAMES {
                    origins.push(OriginRule::Tuple {
                        scheme: scheme.to_string(),
                        host: host.to_string(),
                        port: None,
                    });
                }
            }
        }
        for o in &config.allowed_origins {
            match parse_origin_rule(o) {
                Some(rule) => origins.push(rule),
                None => {
                    tracing::warn!(origin = %o, "--allowed-origin: not scheme://host[:port]; ignored")
                }
            }
        }
        HostOriginCheck { hosts, origins }
    }

    fn host_allowed(&self, headers: &HeaderMap, uri: &http::Uri) -> bool {
        let authority = match headers.get(header::HOST) {
            // A Host is `host[:port]`; userinfo (`evil.example@localhost`) is not part of
            // it, and accepting it would let a name other than the checked one through.
            Some(v) => v
                .to_str()
                .ok()
                .filter(|s| !s.contains('@'))
                .and_then(|s| s.parse::<http::uri::Authority>().ok()),
            None => uri
                .authority()
                .filter(|a| !a.as_str().contains('@'))
                .cloned(),
        };
        let Some(authority) = authority else {
            return false;
        };
        let host = normalize_host(authority.host());
        let port = authority.port_u16();
        self.hosts
            .iter()
            .any(|r| r.host == host && r.port.is_none_or(|p| Some(p) == port))
    }

    fn origin_allowed(&self, headers: &HeaderMap) -> bool {
        let Some(value) = headers.get(header::ORIGIN) else {
            // Not a browser (or a same-origin GET): nothing to check.
            return true;
        };
        let Some(origin) = value.to_str().ok().and_then(parse_origin) else {
            return false;
        };
        self.origins.iter().any(|rule| match (rule, &origin) {
            (OriginRule::Null, OriginRule::Null) => true,
            (
                OriginRule::Tuple { scheme, host, port },
                OriginRule::Tuple {
                    scheme: s,
                    host: h,
                    port: p,
                },
            ) => scheme == s && host == h && port.is_none_or(|port| Some(port) == *p),
            _ => false,
        })
    }
}

/// The layer: refuses a request whose `Host` or `Origin` is not accepted.
pub(super) async fn layer(
    State(check): State<Arc<HostOriginCheck>>,
    request: Request,
    next: Next,
) -> Response {
    if !check.host_allowed(request.headers(), request.uri()) {
        tracing::warn!(host = ?request.headers().get(header::HOST), "refused: Host not allowed");
        return refusal(
            StatusCode::FORBIDDEN,
            "Forbidden: this Host is not allowed (DNS-rebinding protection); start the server with --allowed-host NAME to accept it",
        );
    }
    if !check.origin_allowed(request.headers()) {
        tracing::warn!(origin = ?request.headers().get(header::ORIGIN), "refused: Origin not allowed");
        return refusal(
            StatusCode::FORBIDDEN,
            "Forbidden: this Origin is not allowed; start the server with --allowed-origin SCHEME://HOST[:PORT] to accept it",
        );
    }
    next.run(request).await
}

fn normalize_host(host: &str) -> String {
    host.trim_start_matches('[')
        .trim_end_matches(']')
        .trim_end_matches('.')
        .to_ascii_lowercase()
}

fn parse_host_rule(value: &str) -> Option<HostRule> {
    let value = value.trim();
    if value.is_empty() {
        return None;
    }
    let authority: http::uri::Authority = value.parse().ok()?;
    Some(HostRule {
        host: normalize_host(authority.host()),
        port: authority.port_u16(),
    })
}

/// An `Origin` header value, with the scheme's default port filled in.
fn parse_origin(value: &str) -> Option<OriginRule> {
    let value = value.trim();
    if value == "null" {
        return Some(OriginRule::Null);
    }
    let uri: http::Uri = value.parse().ok()?;
    let scheme = uri.scheme_str()?.to_ascii_lowercase();
    let authority = uri.authority()?;
    let port = authority.port_u16().or(match scheme.as_str() {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    });
    Some(OriginRule::Tuple {
        host: normalize_host(authority.host()),
        scheme,
        port,
    })
}

/// An `--allowed-origin`: `scheme://host[:port]`; `:*` accepts any port, and a missing
/// port means the scheme's default port (as a browser would send it).
fn parse_origin_rule(value: &str) -> Option<OriginRule> {
    let value = value.trim().trim_end_matches('/');
    if let Some(base) = value.strip_suffix(":*") {
        return match parse_origin(base)? {
            OriginRule::Tuple { scheme, host, .. } => Some(OriginRule::Tuple {
                scheme,
                host,
                port: None,
            }),
            OriginRule::Null => None,
        };
    }
    parse_origin(value)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use http::HeaderValue;

    use super::*;

    fn guard(
        hosts: &[&str],
        origins: &[&str],
        token: Option<&str>,
        local: &str,
    ) -> HostOriginCheck {
        let local: SocketAddr = local.parse().unwrap();
        HostOriginCheck::new(
            &HttpConfig {
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
            },
            local,
            local.ip().is_loopback(),
        )
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn hosts_are_loopback_names_bound_ip_and_allowed_ones() {
        let g = guard(
            &["phone-lab.example:9000", "Box.Local"],
            &[],
            None,
            "10.1.2.3:8080",
        );
        let uri = http::Uri::from_static("/mcp");
        for ok in [
            "localhost:1",
            "127.0.0.1",
            "[::1]:80",
            "10.1.2.3:8080",
            "phone-lab.example:9000",
            "box.local:1",
        ] {
            assert!(g.host_allowed(&headers(&[("host", ok)]), &uri), "{ok}");
        }
        for bad in [
            "evil.example",
            "10.1.2.3:9",
            "phone-lab.example:9001",
            "127.0.0.1.evil.example",
            "evil.example@localhost",
            "evil.example@localhost:1",
        ] {
            assert!(!g.host_allowed(&headers(&[("host", bad)]), &uri), "{bad}");
        }
        assert!(!g.host_allowed(&HeaderMap::new(), &uri));
    }

    #[test]
    fn origins_are_checked_and_loopback_ones_accepted_on_loopback() {
        let g = guard(
            &[],
            &["https://app.example", "http://tool.example:*"],
            None,
            "127.0.0.1:1",
        );
        assert!(g.origin_allowed(&HeaderMap::new()));
        for ok in [
            "http://localhost:6274",
            "https://127.0.0.1",
            "http://[::1]:3000",
            "https://app.example:443",
            "http://tool.example:81",
        ] {
            assert!(g.origin_allowed(&headers(&[("origin", ok)])), "{ok}");
        }
        for bad in [
            "http://evil.example",
            "https://app.example:8443",
            "null",
            "garbage",
        ] {
            assert!(!g.origin_allowed(&headers(&[("origin", bad)])), "{bad}");
        }
        let public = guard(&[], &[], Some("t"), "0.0.0.0:1");
        assert!(!public.origin_allowed(&headers(&[("origin", "http://localhost:1")])));
    }
}
