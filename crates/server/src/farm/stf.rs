//! A client of DeviceFarmer STF's REST API (Swagger 2.0, `basePath /api/v1`; STF's
//! `lib/units/api/swagger/api_v1.yaml`, copied in `fixtures/stf/`), over plain HTTP with
//! hyper's HTTP/1 client (no TLS: see [`StfClient::new`]). Every request carries
//! `Authorization: Bearer TOKEN` (`lib/units/api/helpers/securityHandlers.js`) and is
//! bounded by [`REQUEST_TIMEOUT`]; STF answers `{success, description}` bodies
//! (`lib/units/api/controllers/user.js`), and the description is kept for the error.

use std::time::Duration;

use bytes::Bytes;
use http::{Method, Request, StatusCode};
use http_body_util::{BodyExt, Full};
use serde_json::{Value, json};

/// How long one STF request may take. STF itself waits up to 5 s for a device to answer
/// (`user.js`: the 504 timers), so this leaves room for it.
pub(crate) const REQUEST_TIMEOUT: Duration = Duration::from_secs(20);

/// Why an STF request failed.
#[derive(Debug)]
pub(crate) enum StfError {
    /// Nothing answered at the address.
    Unreachable(String),
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
    authority: String,
    /// The API's path prefix, `/api/v1` under the URL's path.
    base: String,
    /// The URL as given, for messages.
    pub(crate) url: String,
    token: String,
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
    /// A client of the STF at `url` (`http://HOST[:PORT][/PATH]`).
    ///
    /// # Errors
    ///
    /// An URL that is not `http://` (https needs TLS, which this build does not speak: put
    /// a TLS-terminating proxy or an SSH tunnel on this machine and give its `http://`
    /// address), or one without a host.
    pub(crate) fn new(url: &str, token: &str) -> Result<StfClient, String> {
        let given = url.trim().trim_end_matches('/');
        let Some(rest) = given.strip_prefix("http://") else {
            return Err(if given.starts_with("https://") {
                format!(
                    "{given}: https is not supported yet; reach STF over http through an SSH tunnel or a local TLS-terminating proxy (e.g. ssh -L 7100:localhost:80 stf-host, then --farm stf=http://127.0.0.1:7100)"
                )
            } else {
                format!("{given}: expected http://HOST[:PORT][/PATH]")
            });
        };
        let (authority, path) = match rest.split_once('/') {
            Some((a, p)) => (a, format!("/{p}")),
            None => (rest, String::new()),
        };
        if authority.is_empty() {
            return Err(format!("{given}: no host"));
        }
        let authority = if authority
            .rsplit_once(':')
            .is_some_and(|(_, p)| p.parse::<u16>().is_ok())
        {
            authority.to_string()
        } else {
            format!("{authority}:80")
        };
        let base = if path.ends_with("/api/v1") {
            path
        } else {
            format!("{path}/api/v1")
        };
        Ok(StfClient {
            authority,
            base,
            url: given.to_string(),
            token: token.trim().to_string(),
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
        let unreachable = |e: &dyn std::fmt::Display| StfError::Unreachable(e.to_string());
        let stream = tokio::net::TcpStream::connect(&self.authority)
            .await
            .map_err(|e| unreachable(&e))?;
        let (mut sender, conn) =
            hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
                .await
                .map_err(|e| unreachable(&e))?;
        let driver = tokio::spawn(conn);
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
        let resp = sender.send_request(req).await.map_err(|e| unreachable(&e));
        let resp = match resp {
            Ok(r) => r,
            Err(e) => {
                driver.abort();
                return Err(e);
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
        let c = StfClient::new("http://stf.lan:7100/", "t").unwrap();
        assert_eq!(
            (c.authority.as_str(), c.base.as_str()),
            ("stf.lan:7100", "/api/v1")
        );
        let c = StfClient::new("http://10.0.0.2/stf/api/v1", "t").unwrap();
        assert_eq!(
            (c.authority.as_str(), c.base.as_str()),
            ("10.0.0.2:80", "/stf/api/v1")
        );
        assert!(
            StfClient::new("https://stf.example.org", "t")
                .unwrap_err()
                .contains("SSH tunnel")
        );
        assert!(StfClient::new("stf.lan", "t").is_err());
    }

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
