//! The HTTP API: one handler routing `/api/v1/...` by method and path, as STF's
//! `api_v1.yaml` names the operations, with the controllers' answers (status codes and
//! `{success, description}` bodies from `lib/units/api/controllers/user.js` and
//! `devices.js`). Error bodies also carry `message`, so they are both the spec's
//! `UnexpectedErrorResponse` and its `ErrorResponse`. A body or query the spec's schema
//! refuses is 400, as STF's swagger validation answers.

use std::time::Duration;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

use crate::{Owner, Shared, Slot, lock, proxy};

pub(crate) fn router(shared: Shared) -> Router {
    Router::new().fallback(handle).with_state(shared)
}

fn reply(status: StatusCode, body: Value) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

fn ok(body: Value) -> Response {
    reply(StatusCode::OK, body)
}

fn fail(status: StatusCode, description: &str) -> Response {
    reply(
        status,
        json!({"success": false, "description": description, "message": description}),
    )
}

/// Percent-decodes a path segment or query value (`+` is a space in a query).
fn decode(s: &str, plus: bool) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            b'+' if plus => {
                out.push(b' ');
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

fn query(q: Option<&str>, name: &str) -> Option<String> {
    q?.split('&').find_map(|kv| {
        let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
        (decode(k, true)? == name)
            .then(|| decode(v, true))
            .flatten()
    })
}

/// STF's `publishDevice` view of a device for the token's user (`datautil.normalize`).
fn publish(slot: &Slot, email: &str) -> Value {
    let d = &slot.info;
    let mine = slot.owner.as_ref().is_some_and(|o| o.email == email);
    let owner = if d.present {
        slot.owner
            .as_ref()
            .map(|o| json!({"email": o.email, "name": o.email.split('@').next().unwrap_or("")}))
    } else {
        None
    };
    json!({
        "serial": d.serial,
        "model": d.model,
        "manufacturer": d.manufacturer,
        "version": d.version,
        "sdk": d.sdk.to_string(),
        "platform": "Android",
        "present": d.present,
        "ready": d.present,
        "using": mine,
        "owner": owner,
        "remoteConnect": mine && slot.remote.is_some(),
        "remoteConnectUrl": if mine { slot.remote.as_ref().map(|r| r.url.clone()) } else { None },
    })
}

/// Only the listed `fields` of a published device (lodash `_.pick`).
fn pick(device: Value, fields: Option<&str>) -> Value {
    match (fields, device) {
        (Some(f), Value::Object(all)) => {
            let kept: Map<String, Value> = f
                .split(',')
                .filter_map(|k| all.get(k).map(|v| (k.to_string(), v.clone())))
                .collect();
            Value::Object(kept)
        }
        (_, d) => d,
    }
}

async fn handle(State(shared): State<Shared>, request: Request) -> Response {
    let method = request.method().clone();
    let path = request.uri().path().to_string();
    let q = request.uri().query().map(str::to_string);
    let auth = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let body = axum::body::to_bytes(request.into_body(), 1 << 20)
        .await
        .unwrap_or_default();
    lock(&shared).events.push(format!("{method} {path}"));

    let Some(rest) = path.strip_prefix("/api/v1") else {
        return fail(StatusCode::NOT_FOUND, "Not Found");
    };
    let segs: Option<Vec<String>> = rest
        .split('/')
        .filter(|s| !s.is_empty())
        .map(|s| decode(s, false))
        .collect();
    let Some(segs) = segs else {
        return fail(StatusCode::BAD_REQUEST, "Bad Request: path");
    };
    let segs: Vec<&str> = segs.iter().map(String::as_str).collect();
    if segs == ["swagger.json"] {
        return fail(StatusCode::NOT_FOUND, "Not Found");
    }

    // securityHandlers.accessTokenAuth
    let token = lock(&shared).token.clone();
    match auth.as_deref().map(|a| a.split(' ').collect::<Vec<_>>()) {
        None => return fail(StatusCode::UNAUTHORIZED, "Requires Authentication"),
        Some(parts) if parts[0] != "Bearer" => {
            return fail(
                StatusCode::UNAUTHORIZED,
                "Authorization header should be in \"Bearer $AUTH_TOKEN\" format",
            );
        }
        Some(parts) if parts.get(1).is_none_or(|t| *t != token) => {
            return fail(StatusCode::UNAUTHORIZED, "Bad Credentials");
        }
        Some(_) => {}
    }
    let fields = query(q.as_deref(), "fields");
    match (method.clone(), segs.as_slice()) {
        (Method::GET, ["user"]) => {
            let email = lock(&shared).email.clone();
            ok(json!({"success": true, "description": "User Profile",
                "user": {"email": email, "name": email.split('@').next().unwrap_or(""), "privilege": "user"}}))
        }
        (Method::GET, ["devices"]) => {
            if let Some(t) = query(q.as_deref(), "target")
                && !["bookable", "standard", "origin", "standardizable", "user"]
                    .contains(&t.as_str())
            {
                return fail(StatusCode::BAD_REQUEST, "Bad Request: target");
            }
            let state = lock(&shared);
            let devices: Vec<Value> = state
                .slots
                .iter()
                .map(|s| pick(publish(s, &state.email), fields.as_deref()))
                .collect();
            ok(json!({"success": true, "description": "Devices Information", "devices": devices}))
        }
        (Method::GET, ["devices", serial]) => {
            let mut state = lock(&shared);
            let email = state.email.clone();
            match state.slot(serial) {
                None => fail(StatusCode::NOT_FOUND, "Device not found"),
                Some(s) => ok(
                    json!({"success": true, "description": "Device Information", "device": pick(publish(s, &email), fields.as_deref())}),
                ),
            }
        }
        (Method::GET, ["user", "devices"]) => {
            let state = lock(&shared);
            let devices: Vec<Value> = state
                .slots
                .iter()
                .filter(|s| s.owner.as_ref().is_some_and(|o| o.email == state.email))
                .map(|s| pick(publish(s, &state.email), fields.as_deref()))
                .collect();
            ok(
                json!({"success": true, "description": "Controlled devices information", "devices": devices}),
            )
        }
        (Method::POST, ["user", "devices"]) => {
            // `AddUserDevicePayload` has no `type` and the API also consumes
            // `application/octet-stream`: any body is valid, and one without a serial names
            // no device (STF's lookup of an undefined serial finds none).
            let Ok(Value::Object(p)) = serde_json::from_slice::<Value>(&body) else {
                return fail(StatusCode::NOT_FOUND, "Device not found");
            };
            let Some(Value::String(serial)) = p.get("serial") else {
                return fail(
                    StatusCode::BAD_REQUEST,
                    "Bad Request: serial is a required string",
                );
            };
            let timeout = match p.get("timeout") {
                None | Some(Value::Null) => None,
                Some(t) => match t.as_u64() {
                    Some(ms) => Some(ms),
                    None if t.as_i64().is_some() => None,
                    None => {
                        return fail(
                            StatusCode::BAD_REQUEST,
                            "Bad Request: timeout is an integer",
                        );
                    }
                },
            };
            add(&shared, serial, timeout)
        }
        (Method::POST, ["user", "devices", serial]) => {
            let timeout = match query(q.as_deref(), "timeout") {
                None => None,
                Some(t) => match t.parse::<u64>() {
                    Ok(ms) => Some(ms),
                    Err(_) => {
                        return fail(
                            StatusCode::BAD_REQUEST,
                            "Bad Request: timeout is an integer of at least 0",
                        );
                    }
                },
            };
            add(&shared, serial, timeout)
        }
        (Method::GET, ["user", "devices", serial]) => {
            let mut state = lock(&shared);
            let email = state.email.clone();
            match state.slot(serial) {
                None => fail(StatusCode::NOT_FOUND, "Device not found"),
                Some(s) if !owned(s, &email) => {
                    fail(StatusCode::FORBIDDEN, "Device is not owned by you")
                }
                Some(s) => {
                    s.touch();
                    ok(
                        json!({"success": true, "description": "Controlled device information",
                        "device": pick(publish(s, &email), fields.as_deref())}),
                    )
                }
            }
        }
        (Method::DELETE, ["user", "devices", serial]) => {
            let mut state = lock(&shared);
            let email = state.email.clone();
            match state.slot(serial) {
                None => fail(StatusCode::NOT_FOUND, "Device not found"),
                Some(s) if !owned(s, &email) => fail(
                    StatusCode::FORBIDDEN,
                    "You cannot release this device. Not owned by you",
                ),
                Some(s) => {
                    s.free();
                    ok(json!({"success": true, "description": "Device successfully removed"}))
                }
            }
        }
        (Method::POST, ["user", "devices", serial, "remoteConnect"]) => {
            let (adbd, active) = {
                let mut state = lock(&shared);
                let email = state.email.clone();
                match state.slot(serial) {
                    None => return fail(StatusCode::NOT_FOUND, "Device not found"),
                    Some(s) if !owned(s, &email) => {
                        return fail(
                            StatusCode::FORBIDDEN,
                            "Device is not owned by you or is not available",
                        );
                    }
                    Some(s) => {
                        s.touch();
                        if let Some(r) = &s.remote {
                            return connected(&r.url);
                        }
                        (s.info.adbd, s.active.clone())
                    }
                }
            };
            let remote = match proxy::start(adbd, active).await {
                Ok(r) => r,
                Err(_) => return fail(StatusCode::GATEWAY_TIMEOUT, "Device is not responding"),
            };
            let url = remote.url.clone();
            let mut state = lock(&shared);
            match state.slot(serial) {
                Some(s) if s.remote.is_none() => s.remote = Some(remote),
                _ => {}
            }
            connected(&url)
        }
        (Method::DELETE, ["user", "devices", serial, "remoteConnect"]) => {
            let mut state = lock(&shared);
            let email = state.email.clone();
            match state.slot(serial) {
                None => fail(StatusCode::NOT_FOUND, "Device not found"),
                Some(s) if !owned(s, &email) => fail(
                    StatusCode::FORBIDDEN,
                    "Device is not owned by you or is not available",
                ),
                Some(s) => {
                    s.touch();
                    s.remote = None;
                    ok(
                        json!({"success": true, "description": "Device remote disconnected successfully"}),
                    )
                }
            }
        }
        (Method::POST, ["user", "adbPublicKeys"]) if body.is_empty() => {
            // The body is optional in the spec: no key, nothing added (STF's controller
            // would fail reading `publickey` of nothing).
            ok(json!({"success": true, "description": "No key given; nothing added"}))
        }
        (Method::POST, ["user", "adbPublicKeys"]) => {
            let Ok(Value::Object(p)) = serde_json::from_slice::<Value>(&body) else {
                return fail(
                    StatusCode::BAD_REQUEST,
                    "Bad Request: the body must be a JSON object",
                );
            };
            let Some(Value::String(key)) = p.get("publickey") else {
                return fail(
                    StatusCode::BAD_REQUEST,
                    "Bad Request: publickey is a required string",
                );
            };
            if p.get("title").is_some_and(|t| !t.is_string()) {
                return fail(StatusCode::BAD_REQUEST, "Bad Request: title is a string");
            }
            // STF parses the key (adbkit's parsePublicKey) and answers 500 when it cannot;
            // the spec asks only for a string, and the double keeps any.
            let mut state = lock(&shared);
            if !state.adb_keys.contains(key) {
                state.adb_keys.push(key.clone());
            }
            ok(json!({"success": true}))
        }
        (_, path) => match allowed(path) {
            Some(methods) => {
                let mut r = fail(StatusCode::METHOD_NOT_ALLOWED, "Method Not Allowed");
                r.headers_mut()
                    .insert(header::ALLOW, header::HeaderValue::from_static(methods));
                r
            }
            None => fail(StatusCode::NOT_FOUND, "Not Found"),
        },
    }
}

/// The methods the spec declares for a path the double serves (for 405's `Allow`).
fn allowed(path: &[&str]) -> Option<&'static str> {
    Some(match path {
        ["user"] => "GET",
        ["devices"] => "GET, DELETE",
        ["devices", _] => "GET, DELETE, PUT",
        ["user", "devices"] => "GET, POST",
        ["user", "devices", _] => "GET, POST, DELETE",
        ["user", "devices", _, "remoteConnect"] => "POST, DELETE",
        ["user", "adbPublicKeys"] => "POST",
        _ => return None,
    })
}

fn owned(s: &Slot, email: &str) -> bool {
    s.info.present && s.owner.as_ref().is_some_and(|o| o.email == email)
}

fn connected(url: &str) -> Response {
    ok(
        json!({"success": true, "description": "Remote connection is enabled", "remoteConnectUrl": url}),
    )
}

/// `addUserDevice`: the device becomes the user's, idle timeout `timeout` ms (else the
/// group timeout), when it is addable (`deviceutil.isAddable`).
fn add(shared: &Shared, serial: &str, timeout: Option<u64>) -> Response {
    let mut state = lock(shared);
    if let Some(i) = state.steal.iter().position(|s| s == serial) {
        state.steal.remove(i);
        if let Some(s) = state.slot(serial) {
            s.owner = Some(Owner {
                email: "someone@example.org".into(),
                timeout: Duration::from_secs(3600),
            });
            s.touch();
        }
    }
    let email = state.email.clone();
    let group = state.group_timeout;
    match state.slot(serial) {
        None => fail(StatusCode::NOT_FOUND, "Device not found"),
        Some(s) if !s.info.present || s.owner.is_some() => fail(
            StatusCode::FORBIDDEN,
            "Device is being used or not available",
        ),
        Some(s) => {
            s.owner = Some(Owner {
                email,
                timeout: timeout
                    .filter(|t| *t > 0)
                    .map_or(group, Duration::from_millis),
            });
            s.touch();
            ok(json!({"success": true, "description": "Device successfully added"}))
        }
    }
}
