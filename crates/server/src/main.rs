//! The `mobile-mcp` binary: parses the command line, sets up logging and the device
//! backends, and serves MCP over stdio (default) or Streamable HTTP.

// stdout carries MCP messages only; logs go through `tracing` to stderr or a file.
#![deny(clippy::print_stdout, clippy::print_stderr)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use clap::Parser;
use mobile_android::{AndroidBackend, AndroidConfig, parse_server};
use mobile_device::{DeviceRegistry, UrlPolicy};
use mobile_ios::{IosBackend, IosConfig};
use mobile_mcp::{
    Boundary, FileRoots, FilteringTransport, HttpConfig, LeasePolicy, LineTransport, MobileServer,
    ServerOptions, ToolPolicy,
};
use mobile_mcp::{Farm, FarmConfig};
use rmcp::ServiceExt;

mod demo;
mod run_flow;

const ENVIRONMENT: &str = "\
Environment:
  RUST_LOG                  log filter (default: warn,mobile_mcp=info); logs go to stderr or --log-file, never stdout
  MCP_MODEL_PAYLOAD_FILTER  exactly 1 turns on the model-visible payload filter (vendor terms become reversible tokens)
  MOBILE_MCP_AUTH           bearer token required by --listen (needed to listen on a non-loopback address)
  ADB_SERVER_SOCKET         adb server as tcp:HOST:PORT (when no --adb-server is given)
  ANDROID_ADB_SERVER_PORT   adb server port on 127.0.0.1 (when no --adb-server is given)
  ANDROID_HOME              searched for platform-tools/adb to start an adb server
  MOBILE_MCP_XCRUN          xcrun executable (same as --xcrun)
  MOBILE_MCP_IDB            idb executable (same as --idb)";

/// MCP server that lets AI agents operate Android phones and iOS simulators.
#[derive(Debug, Parser)]
#[command(name = "mobile-mcp", version, about, long_about = None, after_help = ENVIRONMENT)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,

    /// Serve Streamable HTTP at /mcp on [HOST:]PORT instead of stdio (HOST defaults to 127.0.0.1).
    #[arg(long, value_name = "[HOST:]PORT")]
    listen: Option<String>,

    /// File holding the bearer token --listen requires (instead of MOBILE_MCP_AUTH).
    #[arg(long, value_name = "PATH")]
    auth_token_file: Option<PathBuf>,

    /// Host header value (host or host:port) accepted by --listen besides loopback names; repeatable.
    #[arg(long = "allowed-host", value_name = "HOST")]
    allowed_hosts: Vec<String>,

    /// Browser Origin (scheme://host[:port]) accepted by --listen; repeatable. Requests with any other Origin are refused.
    #[arg(long = "allowed-origin", value_name = "ORIGIN")]
    allowed_origins: Vec<String>,

    /// Largest HTTP request body accepted by --listen, in bytes.
    #[arg(long, default_value_t = 4 * 1024 * 1024, value_name = "BYTES")]
    max_body_bytes: usize,

    /// Close an idle HTTP session after this many seconds.
    #[arg(long, default_value_t = 1800, value_name = "SECONDS")]
    session_idle: u64,

    /// Most Streamable HTTP sessions open at once (--listen); an initialize past it gets 503.
    #[arg(long, default_value_t = 256, value_name = "N")]
    max_sessions: usize,

    /// Close an HTTP connection (--listen) that has not sent a request's headers within this many seconds.
    #[arg(long, default_value_t = 30, value_name = "SECONDS")]
    header_timeout: u64,

    /// Close an HTTP connection (--listen) with no traffic for this many seconds (after its response ends).
    #[arg(long, default_value_t = 120, value_name = "SECONDS")]
    idle_timeout: u64,

    /// Most HTTP connections open at once (--listen); past it, connections that have not made an authorized request give way.
    #[arg(long, default_value_t = 512, value_name = "N")]
    max_connections: usize,

    /// adb server to use, HOST:PORT; repeat for several (default 127.0.0.1:5037, or ADB_SERVER_SOCKET / ANDROID_ADB_SERVER_PORT).
    #[arg(long = "adb-server", value_name = "HOST:PORT", global = true)]
    adb_servers: Vec<String>,

    /// Let several sessions (HTTP clients, or servers sharing an adb server) use one device at once; by default a device is leased to the first session that uses it until that session ends.
    #[arg(long)]
    share_devices: bool,

    /// Folder of the device lease files servers on this machine share (default $XDG_RUNTIME_DIR/mobile-mcp/leases, else /tmp/mobile-mcp-UID/leases).
    #[arg(long, value_name = "DIR")]
    lease_dir: Option<PathBuf>,

    /// A device farm to allocate devices from: stf=URL (DeviceFarmer STF, http:// or https://; an https farm's certificate must chain to the system's roots or to --farm-ca-file); adds the tools mobile_list_remote_devices, mobile_allocate_remote_device and mobile_release_remote_device.
    #[arg(long, value_name = "stf=URL", requires = "farm_token_file")]
    farm: Option<String>,

    /// File holding the farm's access token (STF: Settings, Keys, Access Tokens).
    #[arg(long, value_name = "PATH")]
    farm_token_file: Option<PathBuf>,

    /// PEM file of CA certificates to trust for an https farm, besides the system's roots (a farm behind an internal CA).
    #[arg(long, value_name = "PATH", requires = "farm")]
    farm_ca_file: Option<PathBuf>,

    /// Seconds an allocated farm device may stay idle before the farm frees it by itself (also what frees it if this server dies).
    #[arg(long, default_value_t = 900, value_name = "SECONDS")]
    farm_idle: u64,

    /// Public key of the adb server farm devices are connected on, registered with the farm (default $ANDROID_USER_HOME/adbkey.pub or ~/.android/adbkey.pub).
    #[arg(long, value_name = "PATH")]
    farm_adb_key: Option<PathBuf>,

    /// xcrun executable for iOS simulators [env: MOBILE_MCP_XCRUN].
    #[arg(long, value_name = "PATH", global = true)]
    xcrun: Option<PathBuf>,

    /// idb executable for iOS simulator input and UI trees [env: MOBILE_MCP_IDB].
    #[arg(long, value_name = "PATH", global = true)]
    idb: Option<PathBuf>,

    /// Start a built-in virtual Android phone on loopback and use it (no phone or adb needed).
    #[arg(long, global = true)]
    demo: bool,

    /// Also allow this URL scheme in mobile_open_url (deep links); repeatable. file, javascript, data and intent are never allowed.
    #[arg(long = "allow-url-scheme", value_name = "SCHEME")]
    allow_url_schemes: Vec<String>,

    /// Folder where tools may read and write files on this machine; repeatable (default: the working directory and the temp directory).
    #[arg(long = "files-root", value_name = "DIR")]
    files_roots: Vec<PathBuf>,

    /// Expose only tools annotated read-only.
    #[arg(long)]
    read_only: bool,

    /// Expose only these tools (comma-separated names).
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    allow_tools: Option<Vec<String>>,

    /// Hide these tools (comma-separated names); wins over --allow-tools.
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    deny_tools: Vec<String>,

    /// Deadline of one device call, in seconds.
    #[arg(long, default_value_t = 30, value_name = "SECONDS")]
    timeout: u64,

    /// Deadline of an install, push or pull, in seconds.
    #[arg(long, default_value_t = 300, value_name = "SECONDS")]
    install_timeout: u64,

    /// Append logs to this file instead of stderr.
    #[arg(long, value_name = "PATH")]
    log_file: Option<PathBuf>,
}

/// What to do instead of serving MCP.
#[derive(Debug, clap::Subcommand)]
enum Command {
    /// Run Maestro flow files on a device (no agent); exit status 0 only when every flow passed.
    RunFlow(run_flow::RunFlowArgs),
}

fn init_logging(cli: &Cli) -> anyhow::Result<()> {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| {
        tracing_subscriber::EnvFilter::new(
            "warn,mobile_mcp=info,mobile_android=info,mobile_ios=info",
        )
    });
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false);
    match &cli.log_file {
        Some(path) => {
            let file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .with_context(|| format!("cannot open log file {}", path.display()))?;
            builder.with_writer(Arc::new(file)).init();
        }
        None => builder.with_writer(std::io::stderr).init(),
    }
    Ok(())
}

fn options(cli: &Cli) -> anyhow::Result<ServerOptions> {
    let url_policy = UrlPolicy::with_schemes(&cli.allow_url_schemes)
        .map_err(|e| anyhow::anyhow!("--allow-url-scheme: {e}"))?;
    let files = if cli.files_roots.is_empty() {
        FileRoots::defaults()
    } else {
        for r in &cli.files_roots {
            anyhow::ensure!(r.is_dir(), "--files-root {} is not a folder", r.display());
        }
        FileRoots::new(cli.files_roots.clone())
    };
    tracing::info!(
        "local files are read and written only under: {} (--files-root DIR to choose)",
        files.describe()
    );
    let leases = if cli.share_devices {
        LeasePolicy {
            share: true,
            dir: None,
        }
    } else {
        let dir = cli
            .lease_dir
            .clone()
            .unwrap_or_else(LeasePolicy::default_dir);
        match LeasePolicy::prepare_dir(&dir) {
            Ok(()) => LeasePolicy {
                share: false,
                dir: Some(dir),
            },
            Err(why) if cli.lease_dir.is_some() => anyhow::bail!("--lease-dir: {why}"),
            Err(why) => {
                tracing::warn!("{why}; devices are leased within this server only");
                LeasePolicy::default()
            }
        }
    };
    Ok(ServerOptions {
        leases,
        url_policy,
        files,
        timeout: Duration::from_secs(cli.timeout.max(1)),
        install_timeout: Duration::from_secs(cli.install_timeout.max(1)),
        tools: ToolPolicy {
            read_only: cli.read_only,
            allow: cli.allow_tools.clone(),
            deny: cli.deny_tools.clone(),
        },
        ..ServerOptions::default()
    })
}

/// The farm of `--farm`, connecting its devices on the first adb server.
fn farm(cli: &Cli) -> anyhow::Result<Option<Arc<Farm>>> {
    let Some(spec) = &cli.farm else {
        return Ok(None);
    };
    anyhow::ensure!(
        !cli.demo,
        "--farm cannot be used with --demo (farm devices are connected on a real adb server)"
    );
    let path = cli
        .farm_token_file
        .as_ref()
        .context("--farm needs --farm-token-file")?;
    let token = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read --farm-token-file {}", path.display()))?;
    let adb_server = match cli.adb_servers.first() {
        Some(s) => parse_server(s).map_err(|e| anyhow::anyhow!("--adb-server {s}: {e}"))?,
        None => *AndroidConfig::from_env()
            .servers
            .first()
            .context("no adb server is configured for the farm's devices")?,
    };
    let farm = Farm::new(FarmConfig {
        spec: spec.clone(),
        token,
        ca_file: cli.farm_ca_file.clone(),
        adb_server,
        adb_key: cli
            .farm_adb_key
            .clone()
            .or_else(FarmConfig::default_adb_key),
        idle: Duration::from_secs(cli.farm_idle.max(1)),
    })
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    tracing::info!(farm = %spec, adb_server = %adb_server, "farm devices are connected on this adb server");
    Ok(Some(Arc::new(farm)))
}

/// The device backends: the adb servers and the iOS simulators, or only the built-in
/// virtual phone with `--demo` (kept alive by the returned handle).
fn registry(cli: &Cli) -> anyhow::Result<(DeviceRegistry, Option<demo::Demo>)> {
    let timeout = Duration::from_secs(cli.timeout.max(1));
    let mut registry = DeviceRegistry::new();
    if cli.demo {
        let phone = demo::start(&mut registry)?;
        return Ok((registry, Some(phone)));
    }
    let mut android = AndroidConfig::from_env();
    if !cli.adb_servers.is_empty() {
        android.servers.clear();
        for s in &cli.adb_servers {
            let addr = parse_server(s).map_err(|e| anyhow::anyhow!("--adb-server {s}: {e}"))?;
            android.add_server(addr);
        }
    }
    registry.register(Arc::new(AndroidBackend::new(android)));

    let mut ios = IosConfig::from_env().timeout(timeout);
    if let Some(x) = &cli.xcrun {
        ios.xcrun = Some(x.clone());
    }
    if let Some(i) = &cli.idb {
        ios.idb = Some(i.clone());
    }
    registry.register(Arc::new(IosBackend::new(ios)));
    Ok((registry, None))
}

/// What a person who starts the server in a terminal reads: it waits for an MCP client on
/// stdin/stdout, and the one-line ways to connect one.
fn terminal_greeting(exe: &str, demo: bool) -> String {
    let args = if demo { " --demo" } else { "" };
    let args_json = if demo { r#""--demo""# } else { "" };
    format!(
        "mobile-mcp {version}: an MCP server that lets AI agents operate Android phones and iOS simulators.\n\
         It is waiting for an MCP client on stdin/stdout; typing here does nothing useful. Try it with:\n\
         \x20 a web inspector: npx @modelcontextprotocol/inspector {exe}{args}\n\
         \x20 Qwen Code:       qwen mcp add mobile {exe}{args}\n\
         \x20 any MCP client:  {{\"mcpServers\": {{\"mobile\": {{\"command\": \"{exe}\", \"args\": [{args_json}]}}}}}} in its settings.json\n\
         Streamable HTTP instead: {exe}{args} --listen 8080. Stop with Ctrl-C.",
        version = env!("CARGO_PKG_VERSION"),
    )
}

/// Resolves on SIGTERM or Ctrl-C. The SIGTERM handler is installed when this is called,
/// not when the future is first polled, so a signal sent as soon as the server says it
/// is listening is not lost to the default action.
fn shutdown_signal() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    let term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    async move {
        #[cfg(unix)]
        if let Some(mut term) = term {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// Gives the farm's devices back, within 30 s (past that, the farm's idle timeout does).
async fn give_back(farm: Option<&Farm>) {
    if let Some(f) = farm
        && tokio::time::timeout(Duration::from_secs(30), f.release_all())
            .await
            .is_err()
    {
        tracing::warn!(
            "the farm did not take its devices back within 30 s; its idle timeout will free them"
        );
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    mobile_mcp::tune_allocator();
    let cli = Cli::parse();
    init_logging(&cli)?;
    let options = options(&cli)?;
    let (registry, _demo_phone) = registry(&cli)?;
    if let Some(Command::RunFlow(args)) = &cli.command {
        let passed = run_flow::run(args, &registry).await?;
        std::process::exit(if passed { 0 } else { 1 });
    }
    let registry = Arc::new(registry);
    let farm = farm(&cli)?;
    let mut server = MobileServer::new(registry, options);
    if let Some(f) = &farm {
        server = server.with_farm(f.clone());
    }
    server
        .check_tool_policy()
        .map_err(|e| anyhow::anyhow!("{e}"))?;

    if let Some(listen) = &cli.listen {
        let auth_token = match &cli.auth_token_file {
            Some(path) => Some(
                std::fs::read_to_string(path)
                    .with_context(|| format!("cannot read --auth-token-file {}", path.display()))?
                    .trim()
                    .to_string(),
            ),
            None => std::env::var("MOBILE_MCP_AUTH")
                .ok()
                .filter(|t| !t.is_empty()),
        };
        let config = HttpConfig {
            listen: listen.clone(),
            auth_token,
            allowed_hosts: cli.allowed_hosts.clone(),
            allowed_origins: cli.allowed_origins.clone(),
            max_body_bytes: cli.max_body_bytes,
            session_idle: Duration::from_secs(cli.session_idle.max(1)),
            max_sessions: cli.max_sessions.max(1),
            header_timeout: Duration::from_secs(cli.header_timeout.max(1)),
            idle_timeout: Duration::from_secs(cli.idle_timeout.max(1)),
            max_connections: cli.max_connections.max(1),
        };
        let boundary = Boundary::from_env();
        let shutdown = shutdown_signal();
        tokio::select! {
            r = mobile_mcp::serve_http(server, config, boundary) => r?,
            _ = shutdown => tracing::info!("signal received; shutting down"),
        }
        give_back(farm.as_deref()).await;
        return Ok(());
    }

    let boundary = Boundary::from_env();
    let shutdown = shutdown_signal();
    tracing::info!(payload_filter = boundary.is_some(), "serving MCP on stdio");
    if std::io::IsTerminal::is_terminal(&std::io::stdin()) {
        // A person ran it in a terminal: say what it is and how to try it (stderr only;
        // stdout carries MCP messages).
        let exe = std::env::current_exe()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|_| "mobile-mcp".into());
        #[allow(clippy::print_stderr)] // the one message for a person at a terminal
        {
            eprintln!("{}", terminal_greeting(&exe, cli.demo));
        }
    }
    let serve = async {
        let (stdin, stdout) = rmcp::transport::stdio();
        // Every line is checked before rmcp sees it; bad ones are answered there.
        let transport = LineTransport::new(stdin, stdout);
        let service = match boundary {
            Some(b) => server.serve(FilteringTransport::new(transport, b)).await,
            None => server.serve(transport).await,
        }
        .context("MCP initialization over stdio failed")?;
        service
            .waiting()
            .await
            .context("the MCP service stopped with an error")?;
        anyhow::Ok(())
    };
    let served = tokio::select! {
        r = serve => r,
        _ = shutdown => {
            tracing::info!("signal received; shutting down");
            Ok(())
        }
    };
    // The client is gone (EOF) or a signal came: the farm's devices go back first.
    give_back(farm.as_deref()).await;
    served?;
    // The stdin reader sits on a blocking thread that a runtime shutdown would wait
    // for; nothing is left to flush, so leave now.
    std::process::exit(0);
}

#[cfg(test)]
mod tests {
    use super::terminal_greeting;

    #[test]
    fn the_terminal_greeting_says_what_to_do() {
        let g = terminal_greeting("/opt/mobile-mcp", true);
        assert!(g.contains("waiting for an MCP client"), "{g}");
        assert!(
            g.contains("npx @modelcontextprotocol/inspector /opt/mobile-mcp --demo"),
            "{g}"
        );
        assert!(
            g.contains("qwen mcp add mobile /opt/mobile-mcp --demo"),
            "{g}"
        );
        assert!(
            g.contains(
                r#"{"mcpServers": {"mobile": {"command": "/opt/mobile-mcp", "args": ["--demo"]}}}"#
            ),
            "{g}"
        );
        let plain = terminal_greeting("/opt/mobile-mcp", false);
        assert!(plain.contains(r#""args": []"#), "{plain}");
        assert!(!plain.contains("--demo"), "{plain}");
    }
}
