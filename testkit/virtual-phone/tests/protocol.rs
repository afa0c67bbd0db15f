//! The adbd wire protocol, driven by a raw client: handshake without AUTH, checksums,
//! refused services, several streams at once with per-stream flow control, reconnects.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use virtual_phone::protocol::*;
use virtual_phone::{PhoneConfig, VirtualPhone};

struct Client {
    s: TcpStream,
}

impl Client {
    fn connect(addr: std::net::SocketAddr) -> Client {
        let s = TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        s.set_nodelay(true).unwrap();
        Client { s }
    }
    fn send(&mut self, cmd: u32, a0: u32, a1: u32, payload: &[u8]) {
        self.s
            .write_all(&Packet::new(cmd, a0, a1, payload.to_vec()).encode())
            .unwrap();
    }
    /// Reads one packet and checks magic and the byte-sum checksum.
    fn recv(&mut self) -> Packet {
        let mut header = [0u8; 24];
        self.s.read_exact(&mut header).expect("packet within 10 s");
        let w = |i: usize| u32::from_le_bytes(header[i * 4..i * 4 + 4].try_into().unwrap());
        assert_eq!(w(5), w(0) ^ 0xffff_ffff, "magic");
        let mut payload = vec![0u8; w(3) as usize];
        self.s.read_exact(&mut payload).unwrap();
        assert_eq!(w(4), checksum(&payload), "data_check is the byte sum");
        Packet::new(w(0), w(1), w(2), payload)
    }
    fn handshake(&mut self) -> String {
        self.send(
            A_CNXN,
            0x0100_0001,
            256 * 1024,
            b"host::features=shell_v2,cmd\0",
        );
        let p = self.recv();
        assert_eq!(
            p.command, A_CNXN,
            "no AUTH: the device answers CNXN directly"
        );
        assert_eq!(p.arg0, A_VERSION);
        String::from_utf8(p.payload).unwrap()
    }
}

#[test]
fn handshake_banner_and_refused_service() {
    let phone = VirtualPhone::start(PhoneConfig::default()).unwrap();
    let mut c = Client::connect(phone.addr());
    let banner = c.handshake();
    assert_eq!(
        banner,
        "device::ro.product.name=panther;ro.product.model=Pixel 7;ro.product.device=panther;features=\0"
    );
    c.send(A_OPEN, 7, 0, b"reboot:\0");
    let p = c.recv();
    assert_eq!(
        (p.command, p.arg0, p.arg1),
        (A_CLSE, 0, 7),
        "refused like adbd: CLSE(0, id)"
    );
    c.send(A_OPEN, 8, 0, b"shell,v2,raw:echo hi\0");
    let p = c.recv();
    assert_eq!(
        (p.command, p.arg0, p.arg1),
        (A_CLSE, 0, 8),
        "shell v2 is not offered"
    );
    c.send(A_OPEN, 9, 0, b"shell:echo 'hi there'\0");
    let ok = c.recv();
    assert_eq!((ok.command, ok.arg1), (A_OKAY, 9));
    let local = ok.arg0;
    let w = c.recv();
    assert_eq!((w.command, w.arg0, w.arg1), (A_WRTE, local, 9));
    assert_eq!(w.payload, b"hi there\n");
    c.send(A_OKAY, 9, local, b"");
    let cl = c.recv();
    assert_eq!((cl.command, cl.arg0, cl.arg1), (A_CLSE, local, 9));
}

#[test]
fn streams_are_multiplexed_with_per_stream_flow_control() {
    let phone = VirtualPhone::start(PhoneConfig::default()).unwrap();
    let mut c = Client::connect(phone.addr());
    c.handshake();
    // Stream 1: a big binary reply (raw screencap is ~10 MB, many WRTEs).
    c.send(A_OPEN, 1, 0, b"exec:screencap\0");
    let ok1 = c.recv();
    assert_eq!((ok1.command, ok1.arg1), (A_OKAY, 1));
    let first = c.recv();
    assert_eq!((first.command, first.arg1), (A_WRTE, 1));
    assert!(
        first.payload.len() <= 256 * 1024,
        "WRTE within the negotiated payload"
    );
    // Without our OKAY on stream 1, the device must not send stream 1 more data, but stream 2
    // still works.
    c.send(A_OPEN, 2, 0, b"shell:getprop ro.build.version.release\0");
    let mut got2 = Vec::new();
    let mut local2 = 0;
    loop {
        let p = c.recv();
        assert_ne!(
            p.arg1,
            1,
            "stream 1 sent data before its OKAY: {}",
            command_name(p.command)
        );
        match p.command {
            A_OKAY => local2 = p.arg0,
            A_WRTE => {
                got2.extend_from_slice(&p.payload);
                c.send(A_OKAY, 2, local2, b"");
            }
            A_CLSE => break,
            other => panic!("unexpected {}", command_name(other)),
        }
    }
    assert_eq!(got2, b"14\n");
    // Now drain stream 1.
    let mut total = first.payload.len();
    c.send(A_OKAY, 1, ok1.arg0, b"");
    loop {
        let p = c.recv();
        match p.command {
            A_WRTE => {
                total += p.payload.len();
                c.send(A_OKAY, 1, ok1.arg0, b"");
            }
            A_CLSE => break,
            other => panic!("unexpected {}", command_name(other)),
        }
    }
    assert_eq!(total, 16 + 1080 * 2400 * 4);
}

#[test]
fn sync_requests_split_across_packets() {
    let phone = VirtualPhone::start(PhoneConfig::default()).unwrap();
    let mut c = Client::connect(phone.addr());
    c.handshake();
    c.send(A_OPEN, 5, 0, b"sync:\0");
    let local = c.recv().arg0;
    // SEND header split in the middle of the length; DATA and DONE glued together.
    let spec = b"/sdcard/x.txt,33188";
    let mut req = b"SEND".to_vec();
    req.extend_from_slice(&(spec.len() as u32).to_le_bytes());
    req.extend_from_slice(spec);
    req.extend_from_slice(b"DATA");
    req.extend_from_slice(&5u32.to_le_bytes());
    req.extend_from_slice(b"hello");
    req.extend_from_slice(b"DONE");
    req.extend_from_slice(&1_700_000_000u32.to_le_bytes());
    for part in [&req[..6], &req[6..30], &req[30..]] {
        c.send(A_WRTE, 5, local, part);
        assert_eq!(c.recv().command, A_OKAY);
    }
    let reply = c.recv();
    assert_eq!(&reply.payload[..4], b"OKAY");
    c.send(A_OKAY, 5, local, b"");
    assert_eq!(phone.file("/sdcard/x.txt").as_deref(), Some(&b"hello"[..]));
    // STAT reports the mode and mtime we sent.
    let mut stat = b"STAT".to_vec();
    stat.extend_from_slice(&13u32.to_le_bytes());
    stat.extend_from_slice(b"/sdcard/x.txt");
    c.send(A_WRTE, 5, local, &stat);
    assert_eq!(c.recv().command, A_OKAY);
    let r = c.recv();
    let w = |i: usize| u32::from_le_bytes(r.payload[i..i + 4].try_into().unwrap());
    assert_eq!(&r.payload[..4], b"STAT");
    assert_eq!((w(4), w(8), w(12)), (33188, 5, 1_700_000_000));
}

#[test]
fn host_disconnect_and_reconnect() {
    let phone = VirtualPhone::start(PhoneConfig::default()).unwrap();
    {
        let mut c = Client::connect(phone.addr());
        c.handshake();
        // Leave a long-running stream open, then vanish.
        c.send(A_OPEN, 1, 0, b"shell:screenrecord /sdcard/a.mp4\0");
        assert_eq!(c.recv().command, A_OKAY);
        // A second CNXN on the same socket restarts the transport.
        c.handshake();
    }
    let deadline = Instant::now() + Duration::from_secs(5);
    while phone.connection_count() > 0 {
        assert!(Instant::now() < deadline, "connection not cleaned up");
        std::thread::sleep(Duration::from_millis(20));
    }
    // The recording ended with the connection.
    let deadline = Instant::now() + Duration::from_secs(5);
    while phone.file("/sdcard/a.mp4").is_none() {
        assert!(
            Instant::now() < deadline,
            "screenrecord not stopped by the disconnect"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut c = Client::connect(phone.addr());
    c.handshake();
    c.send(A_OPEN, 3, 0, b"shell:id\0");
    assert_eq!(c.recv().command, A_OKAY);
    let w = c.recv();
    assert!(w.payload.starts_with(b"uid=2000(shell)"));
}

#[test]
fn interactive_shell_runs_line_by_line_and_follow_logcat_ends_on_close() {
    let phone = VirtualPhone::start(PhoneConfig::default()).unwrap();
    let mut c = Client::connect(phone.addr());
    c.handshake();
    c.send(A_OPEN, 1, 0, b"shell:\0");
    let local = c.recv().arg0;
    c.send(A_WRTE, 1, local, b"echo one\ngetprop ro.product.brand\n");
    assert_eq!(c.recv().command, A_OKAY);
    let mut got = Vec::new();
    while got != b"one\ngoogle\n" {
        let p = c.recv();
        assert_eq!(p.command, A_WRTE);
        got.extend_from_slice(&p.payload);
        c.send(A_OKAY, 1, local, b"");
    }
    c.send(A_WRTE, 1, local, b"exit\n");
    assert_eq!(c.recv().command, A_OKAY);
    assert_eq!(c.recv().command, A_CLSE);
    // `logcat` without -d follows until the host closes the stream.
    c.send(A_OPEN, 2, 0, b"shell:logcat -T 1\0");
    let local = c.recv().arg0;
    let first = c.recv();
    assert_eq!(first.command, A_WRTE);
    c.send(A_OKAY, 2, local, b"");
    phone.update_state(|s| s.log('I', "Test", "a new line"));
    let next = c.recv();
    assert!(
        String::from_utf8_lossy(&next.payload).contains("I Test    : a new line"),
        "{:?}",
        String::from_utf8_lossy(&next.payload)
    );
    c.send(A_OKAY, 2, local, b"");
    c.send(A_CLSE, 2, local, b"");
    // The stream is gone: a new one still works.
    c.send(A_OPEN, 3, 0, b"shell:echo after\0");
    let ok = c.recv();
    assert_eq!((ok.command, ok.arg1), (A_OKAY, 3));
    let w = c.recv();
    assert_eq!(w.payload, b"after\n");
}

#[test]
fn reserved_ports_are_refused() {
    let cfg = PhoneConfig {
        addr: "127.0.0.1:5555".parse().unwrap(),
        ..PhoneConfig::default()
    };
    assert!(VirtualPhone::start(cfg).is_err());
}
