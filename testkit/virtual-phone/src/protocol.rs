//! The adb transport packet: a 24-byte little-endian header and its payload.
//!
//! Facts from `system/core/adb` (platform-tools 29.0.6): `magic = command ^ 0xffffffff`,
//! `data_check` is the byte-sum of the payload (not a CRC). The 29.0.6 server ignores it but
//! `adb_client`'s direct-TCP path verifies it, so it is always filled in here.

use std::io::{self, Read, Write};

/// `CNXN`: connect (version, max payload, banner).
pub const A_CNXN: u32 = 0x4e58_4e43;
/// `AUTH`: authentication (never requested by this device).
pub const A_AUTH: u32 = 0x4854_5541;
/// `OPEN`: open a stream to a service.
pub const A_OPEN: u32 = 0x4e45_504f;
/// `OKAY`: stream opened, or a WRTE acknowledged.
pub const A_OKAY: u32 = 0x5941_4b4f;
/// `CLSE`: close a stream.
pub const A_CLSE: u32 = 0x4553_4c43;
/// `WRTE`: stream data.
pub const A_WRTE: u32 = 0x4554_5257;
/// `SYNC`: legacy USB sync (unused).
pub const A_SYNC: u32 = 0x434e_5953;
/// `STLS`: start TLS (never requested by this device).
pub const A_STLS: u32 = 0x534c_5453;

/// `A_VERSION` of adbd 29 (skip-checksum version; we still send checksums).
pub const A_VERSION: u32 = 0x0100_0001;
/// Largest payload we accept or announce (adbd's `MAX_PAYLOAD`).
pub const MAX_PAYLOAD: u32 = 1024 * 1024;
/// Payloads larger than this are never accepted from a peer, whatever it announced.
const HARD_PAYLOAD_LIMIT: u32 = 16 * 1024 * 1024;

/// One adb transport packet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Packet {
    /// The command word (`A_CNXN`, …).
    pub command: u32,
    /// First argument (for streams: the sender's local id).
    pub arg0: u32,
    /// Second argument (for streams: the receiver's id).
    pub arg1: u32,
    /// The payload bytes.
    pub payload: Vec<u8>,
}

/// The byte-sum checksum adb uses for `data_check`.
pub fn checksum(payload: &[u8]) -> u32 {
    payload
        .iter()
        .fold(0u32, |sum, &b| sum.wrapping_add(u32::from(b)))
}

/// A readable name for a command word (for logs and errors).
pub fn command_name(command: u32) -> String {
    let bytes = command.to_le_bytes();
    if bytes.iter().all(|b| b.is_ascii_uppercase()) {
        String::from_utf8_lossy(&bytes).into_owned()
    } else {
        format!("0x{command:08x}")
    }
}

impl Packet {
    /// A packet with the given header fields and payload.
    pub fn new(command: u32, arg0: u32, arg1: u32, payload: impl Into<Vec<u8>>) -> Self {
        Packet {
            command,
            arg0,
            arg1,
            payload: payload.into(),
        }
    }

    /// Serializes header and payload into one buffer (one `write_all`, so a packet is never
    /// interleaved with another thread's packet when the writer is behind a mutex).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(24 + self.payload.len());
        for word in [
            self.command,
            self.arg0,
            self.arg1,
            self.payload.len() as u32,
            checksum(&self.payload),
            self.command ^ 0xffff_ffff,
        ] {
            out.extend_from_slice(&word.to_le_bytes());
        }
        out.extend_from_slice(&self.payload);
        out
    }

    /// Writes the encoded packet and flushes.
    pub fn write_to(&self, w: &mut impl Write) -> io::Result<()> {
        w.write_all(&self.encode())?;
        w.flush()
    }

    /// Reads one packet. `Ok(None)` on a clean EOF before the header.
    pub fn read_from(r: &mut impl Read) -> io::Result<Option<Packet>> {
        let mut header = [0u8; 24];
        let mut filled = 0;
        while filled < header.len() {
            match r.read(&mut header[filled..]) {
                Ok(0) if filled == 0 => return Ok(None),
                Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        let word = |i: usize| u32::from_le_bytes(header[i * 4..i * 4 + 4].try_into().unwrap());
        let (command, arg0, arg1, len, _check, magic) =
            (word(0), word(1), word(2), word(3), word(4), word(5));
        if magic != command ^ 0xffff_ffff {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("bad magic for {}", command_name(command)),
            ));
        }
        if len > HARD_PAYLOAD_LIMIT {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("payload of {len} bytes is too large"),
            ));
        }
        let mut payload = vec![0u8; len as usize];
        r.read_exact(&mut payload)?;
        Ok(Some(Packet {
            command,
            arg0,
            arg1,
            payload,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_checksum() {
        let p = Packet::new(A_WRTE, 1, 2, b"hello".to_vec());
        let bytes = p.encode();
        assert_eq!(bytes.len(), 29);
        assert_eq!(
            u32::from_le_bytes(bytes[16..20].try_into().unwrap()),
            104 + 101 + 108 + 108 + 111
        );
        let back = Packet::read_from(&mut &bytes[..]).unwrap().unwrap();
        assert_eq!(back, p);
        assert_eq!(command_name(A_CNXN), "CNXN");
    }

    #[test]
    fn bad_magic_is_rejected() {
        let mut bytes = Packet::new(A_OKAY, 1, 2, Vec::new()).encode();
        bytes[20] ^= 1;
        assert!(Packet::read_from(&mut &bytes[..]).is_err());
    }
}
