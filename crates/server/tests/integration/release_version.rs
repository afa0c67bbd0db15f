//! The version a user sees is the one that is released: `mobile-mcp --version` prints the
//! crate's version, and the repository's `server.json` (the one place the package names
//! and the released version live; scripts/package.sh reads it) names that version for the
//! server and for every package.

use std::process::Command;

use super::SERVER;

const VERSION: &str = env!("CARGO_PKG_VERSION");

#[test]
fn version_flag_prints_the_crate_version() {
    let out = Command::new(SERVER).arg("--version").output().unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!("mobile-mcp {VERSION}\n")
    );
}

#[test]
fn server_json_names_the_crate_version_for_every_package() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../server.json");
    let server: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(server["version"], VERSION, "server.json's version");
    let packages = server["packages"].as_array().unwrap();
    let kinds: Vec<&str> = packages
        .iter()
        .map(|p| p["registryType"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["npm", "pypi", "mcpb"]);
    for package in packages {
        assert_eq!(package["version"], VERSION, "{package}");
    }
    let bundle = packages[2]["identifier"].as_str().unwrap();
    assert!(
        bundle.ends_with(&format!("/v{VERSION}/mobile-mcp-{VERSION}.mcpb")),
        "{bundle}"
    );
}
