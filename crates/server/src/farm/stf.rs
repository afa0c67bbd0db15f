//! A client of DeviceFarmer STF's REST API (Swagger 2.0, `basePath /api/v1`; STF's
//! `lib/units/api/swagger/api_v1.yaml`, copied in `fixtures/stf/`), over HTTP or HTTPS
//! ([`super::tls`]) with hyper's HTTP/1 client, one connection per request. Every request carries
//! `Authorization: Bearer TOKEN` (`lib/units/api/helpers/securityHandlers.js`) and is
//! bounded by [`REQUEST_TIMEOUT`]; STF answers `{success, description}` bodies
//! (`lib/units/api/controllers/user.js`), and the description is kept for the error.

use std::path::Path;
use std::time::Duration;

use bytes::Bytes;
use http::{Method, Request, StatusCode};
use http_body_util::{BodyExt, Full};
use serde_json::{Value, json};

use super::tls::{Tls, TlsFailure};

/// How long one STF request may take. STF itself waits up to 5 s for a device to answer
/// (`user.js`: the 504 timers), so this leaves room for it.
pub(crate) const REQUEST_TIMEOUT: Duration = Duration::from_secs(20);

/// Why an STF request failed.
#[derive(Debug)]
pub(crate) enum StfError {
    /// Nothing answered at the address.
    Unreachable(String),
    /// https: the farm's certificate (for the host) was refused, and why.
    Untrusted(String, String),
    /// https: the TLS handshake with the host failed otherwise.
    Handshake(String, String),
    /// 401: the token was refused.
    Unauthorized(String),
    /// 403: the device is someone else's, or not available.
    Forbidden(String),
    /// 404: no such device.
    NotFound(String),
    /// Any other answer.
    Other(u16, String),
}

/// One STF server.
#[derive(Debug, Clone)]
pub(crate) struct StfClient {
    /// `host:port` to connect to.
    connect_to: String,
    /// `host[:port]` as the URL gives it, the `Host` header.
    authority: String,
    /// The API's path prefix, `/api/v1` under the URL's path.
    base: String,
    /// The URL as given, for messages.
    pub(crate) url: String,
    token: String,
    /// For an `https://` farm.
    tls: Option<Tls>,
}

/// A device as `GET /devices` lists it (`fields=serial,model,…`).
#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema)]
pub(crate) struct StfDevice {
    pub serial: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub manufacturer: Option<String>,
    /// Android release.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// `free`, `yours`, `in use`, or `unavailable` (not present or not ready).
    pub state: String,
    /// Who holds it, when someone does and STF says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
}

impl StfClient {
    /// A client of the STF at `url` (`http[s]://HOST[:PORT][/PATH]`; ports 80 and 443 by
    /// default). An https farm's certificate must chain to the system's roots or to one in
    /// `ca_file` (PEM).
    ///
    /// # Errors
    ///
    /// An URL that is neither `http://` nor `https://`, one without a host, a `ca_file`
    /// for an http farm, or TLS that cannot be set up ([`Tls::new`]).
    pub(crate) fn new(url: &str, token: &str, ca_file: Option<&Path>) -> Result<StfClient, String> {
        let given = url.trim().trim_end_matches('/');
        let (rest, https) = if let Some(r) = given.strip_prefix("https://") {
            (r, true)
        } else if let Some(r) = given.strip_prefix("http://") {
            (r, false)
        } else {
            return Err(format!("{given}: expected http[s]://HOST[:PORT][/PATH]"));
        };
        let (authority, path) = match rest.split_once('/') {
            Some((a, p)) => (a, format!("/{p}")),
            None => (rest, String::new()),
        };
        let (host, port) = split_authority(authority);
        if host.is_empty() || host == "[]" {
            return Err(format!("{given}: no host"));
        }
        let port = match port {
            Some(p) => p
                .parse::<u16>()
                .map_err(|_| format!("{given}: {p} is not a port"))?,
            None if https => 443,
            None => 80,
        };
        let tls = match (https, ca_file) {
            (true, _) => Some(Tls::new(host, ca_file).map_err(|e| format!("{given}: {e}"))?),
            (false, Some(f)) => {
                return Err(format!(
                    "--farm-ca-file {} is for an https farm; {given} is http",
                    f.display()
                ));
            }
            (false, None) => None,
        };
        let base = if path.ends_with("/api/v1") {
            path
        } else {
            format!("{path}/api/v1")
        };
        Ok(StfClient {
            connect_to: format!("{host}:{port}"),
            authority: authority.to_string(),
            base,
            url: given.to_string(),
            token: token.trim().to_string(),
            tls,
        })
    }

    /// One request; the JSON body of a 2xx answer, else the error by status.
    async fn call(
        &self,
        method: Method,
        path: &str,
        body: Option<Value>,
    ) -> Result<Value, StfError> {
        tokio::time::timeout(
            REQUEST_TIMEOUT,
            self.call_unbounded(method.clone(), path, body),
        )
        .await
        .unwrap_or_else(|_| {
            Err(StfError::Unreachable(format!(
                "{method} {path} got no answer within {} s",
                REQUEST_TIMEOUT.as_secs()
            )))
        })
    }

    async fn call_unbounded(
        &self,
        method: Method,
        path: &str,
        body: Option<Value>,
    ) -> Result<Value, StfError> {
        let bytes = body.map(|b| b.to_string()).unwrap_or_default();
        let mut req = Request::builder()
            .method(method)
            .uri(format!("{}{path}", self.base))
            .header(http::header::HOST, &self.authority)
            .header(
                http::header::AUTHORIZATION,
                format!("Bearer {}", self.token),
            )
            .header(http::header::ACCEPT, "application/json");
        if !bytes.is_empty() {
            req = req.header(http::header::CONTENT_TYPE, "application/json");
        }
        let req = req
            .body(Full::new(Bytes::from(bytes)))
            .map_err(|e| StfError::Other(0, e.to_string()))?;
        let stream = tokio::net::TcpStream::connect(&self.connect_to)
            .await
            .map_err(|e| StfError::Unreachable(e.to_string()))?;
        let (status, body) = match &self.tls {
            None => exchange(stream, req).await?,
            Some(tls) => {
                let stream = tls.connect(stream).await.map_err(|f| match f {
                    TlsFailure::Untrusted(why) => StfError::Untrusted(tls.host.clone(), why),
                    TlsFailure::Handshake(why) => StfError::Handshake(tls.host.clone(), why),
                })?;
                exchange(stream, req).await?
            }
        };
        let json: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        if status.is_success() {
            return Ok(json);
        }
        let why = json
            .get("description")
            .or_else(|| json.get("message"))
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| String::from_utf8_lossy(&body).chars().take(200).collect());
        Err(match status {
            StatusCode::UNAUTHORIZED => StfError::Unauthorized(why),
            StatusCode::FORBIDDEN => StfError::Forbidden(why),
            StatusCode::NOT_FOUND => StfError::NotFound(why),
            s => StfError::Other(s.as_u16(), why),
        })
    }

    /// `GET /devices?fields=…`: every device of the farm the token's user can see.
    pub(crate) async fn devices(&self) -> Result<Vec<StfDevice>, StfError> {
        let v = self
            .call(
                Method::GET,
                "/devices?fields=serial,model,manufacturer,version,present,ready,using,owner",
                None,
            )
            .await?;
        let list = v
            .get("devices")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        Ok(list.iter().filter_map(device).collect())
    }

    /// `POST /user/devices {serial, timeout}`: leases the device, freed by STF after
    /// `idle` without activity.
    pub(crate) async fn add(&self, serial: &str, idle: Duration) -> Result<(), StfError> {
        let timeout = u64::try_from(idle.as_millis()).unwrap_or(u64::MAX);
        self.call(
            Method::POST,
            "/user/devices",
            Some(json!({"serial": serial, "timeout": timeout})),
        )
        .await
        .map(drop)
    }

    /// `DELETE /user/devices/{serial}`: gives the device back.
    pub(crate) async fn remove(&self, serial: &str) -> Result<(), StfError> {
        self.call(
            Method::DELETE,
            &format!("/user/devices/{}", segment(serial)),
            None,
        )
        .await
        .map(drop)
    }

    /// `POST /user/devices/{serial}/remoteConnect`: starts remote adb; its `HOST:PORT`.
    pub(crate) async fn remote_connect(&self, serial: &str) -> Result<String, StfError> {
        let v = self
            .call(
                Method::POST,
                &format!("/user/devices/{}/remoteConnect", segment(serial)),
                None,
            )
            .await?;
        v.get("remoteConnectUrl")
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| StfError::Other(200, "the answer had no remoteConnectUrl".into()))
    }

    /// `DELETE /user/devices/{serial}/remoteConnect`: stops remote adb.
    pub(crate) async fn remote_disconnect(&self, serial: &str) -> Result<(), StfError> {
        self.call(
            Method::DELETE,
            &format!("/user/devices/{}/remoteConnect", segment(serial)),
            None,
        )
        .await
        .map(drop)
    }

    /// `POST /user/adbPublicKeys {publickey, title}`: lets our adb server's key in.
    pub(crate) async fn add_adb_key(&self, key: &str) -> Result<(), StfError> {
        self.call(
            Method::POST,
            "/user/adbPublicKeys",
            Some(json!({"publickey": key, "title": "mobile-mcp"})),
        )
        .await
        .map(drop)
    }
}

/// One request and its answer over `io` (plain TCP or TLS), on hyper's HTTP/1 client.
async fn exchange<I>(io: I, req: Request<Full<Bytes>>) -> Result<(StatusCode, Bytes), StfError>
where
    I: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let unreachable = |e: &dyn std::fmt::Display| StfError::Unreachable(e.to_string());
    let (mut sender, conn) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(io))
            .await
            .map_err(|e| unreachable(&e))?;
    let driver = tokio::spawn(conn);
    let resp = match sender.send_request(req).await {
        Ok(r) => r,
        Err(e) => {
            driver.abort();
            return Err(unreachable(&e));
        }
    };
    let status = resp.status();
    let body = resp
        .into_body()
        .collect()
        .await
        .map(|c| c.to_bytes())
        .unwrap_or_default();
    driver.abort();
    Ok((status, body))
}

/// `HOST[:PORT]` split; an IPv6 host keeps its brackets (`[::1]:7100`).
fn split_authority(authority: &str) -> (&str, Option<&str>) {
    if authority.starts_with('[') {
        return match authority.split_once(']') {
            Some((h, rest)) => (
                &authority[..=h.len()],
                rest.strip_prefix(':').filter(|p| !p.is_empty()),
            ),
            None => (authority, None),
        };
    }
    match authority.rsplit_once(':') {
        Some((h, p)) => (h, Some(p)),
        None => (authority, None),
    }
}

/// A path segment with everything but unreserved characters percent-encoded.
fn segment(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// One listed device, from STF's device record (`lib/util/datautil.js`: `using` is the
/// token user's own lease; `owner` is whoever holds it).
fn device(v: &Value) -> Option<StfDevice> {
    let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    let b = |k: &str| v.get(k).and_then(Value::as_bool).unwrap_or(false);
    let owner = v
        .get("owner")
        .and_then(|o| o.get("email").or_else(|| o.get("name")))
        .and_then(Value::as_str)
        .map(str::to_string);
    let state = if !b("present") || !b("ready") {
        "unavailable"
    } else if b("using") {
        "yours"
    } else if owner.is_some() || v.get("owner").is_some_and(|o| !o.is_null()) {
        "in use"
    } else {
        "free"
    };
    Some(StfDevice {
        serial: s("serial")?,
        model: s("model"),
        manufacturer: s("manufacturer"),
        version: s("version"),
        state: state.into(),
        owner,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        let at = |url| {
            let c = StfClient::new(url, "t", None).unwrap();
            (c.connect_to, c.authority, c.base, c.tls.is_some())
        };
        let s = String::from;
        assert_eq!(
            at("http://stf.lan:7100/"),
            (s("stf.lan:7100"), s("stf.lan:7100"), s("/api/v1"), false)
        );
        assert_eq!(
            at("http://10.0.0.2/stf/api/v1"),
            (s("10.0.0.2:80"), s("10.0.0.2"), s("/stf/api/v1"), false)
        );
        // https: port 443 unless given; the URL's host is the name checked.
        let ca = tempfile::tempdir().unwrap();
        let pem = ca.path().join("ca.pem");
        std::fs::write(&pem, TEST_CA).unwrap();
        let tls = |url| StfClient::new(url, "t", Some(&pem)).unwrap();
        let c = tls("https://stf.example.org");
        assert_eq!(c.connect_to, "stf.example.org:443");
        assert_eq!(
            c.tls.as_ref().map(|t| t.host.as_str()),
            Some("stf.example.org")
        );
        let c = tls("https://[::1]:8443/stf");
        assert_eq!(
            (c.connect_to.as_str(), c.base.as_str()),
            ("[::1]:8443", "/stf/api/v1")
        );
        assert!(StfClient::new("stf.lan", "t", None).is_err());
        assert!(
            StfClient::new("https://:443", "t", None)
                .unwrap_err()
                .contains("no host")
        );
        assert!(
            StfClient::new("http://stf.lan", "t", Some(&pem))
                .unwrap_err()
                .contains("is for an https farm")
        );
    }

    /// A self-signed CA certificate, only parsed here (`openssl req -x509 -newkey ec
    /// -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=test-ca -days 3650`).
    const TEST_CA: &str = "\
-----BEGIN CERTIFICATE-----\n\
MIIBeDCCAR+gAwIBAgIUBHDlOa0w+UUaj9JJ3rwYUGeO+xUwCgYIKoZIzj0EAwIw\n\
EjEQMA4GA1UEAwwHdGVzdC1jYTAeFw0yNjEyMDIxNTM1NTZaFw0zNjExMjkxNTM1\n\
NTZaMBIxEDAOBgNVBAMMB3Rlc3QtY2EwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNC\n\
AATSJ/Vvu2MdGitFNvqUuZM+tLsDd2XvSxY/IFwhCGWJEDV8qf/6Yrtr8APyEXBx\n\
BBg5dDpVi25QyoieegUpazaUo1MwUTAdBgNVHQ4EFgQUrHFnsVfnUI7zhBM6QktH\n\
fUYBOEUwHwYDVR0jBBgwFoAUrHFnsVfnUI7zhBM6QktHfUYBOEUwDwYDVR0TAQH/\n\
BAUwAwEB/zAKBggqhkjOPQQDAgNHADBEAiBwmoRjCm9OH9WZg0ErBfmprB4vGlqW\n\
7He8Qk5//9SAbQIge1LGb0K7LV5kvvx3b0oNEnZ6Tu2QtWQWy8dTUlxrOs8=\n\
-----END CERTIFICATE-----\n\
";

    #[test]
    fn device_states() {
        let d = |v: Value| device(&v).unwrap().state;
        let base =
            json!({"serial": "A", "present": true, "ready": true, "using": false, "owner": null});
        assert_eq!(d(base.clone()), "free");
        let mut mine = base.clone();
        mine["using"] = json!(true);
        mine["owner"] = json!({"email": "me@x"});
        assert_eq!(d(mine), "yours");
        let mut theirs = base.clone();
        theirs["owner"] = json!({"email": "them@x"});
        assert_eq!(d(theirs), "in use");
        let mut gone = base;
        gone["present"] = json!(false);
        assert_eq!(d(gone), "unavailable");
    }
}
