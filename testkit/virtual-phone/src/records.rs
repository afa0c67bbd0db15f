//! The phone's in-process command log: the last [`KEPT`] records in a ring, so a phone
//! that serves a long `--demo` session does not grow without end, and the injection
//! records apart from it, so a test's injection check never misses one that the ring
//! has since dropped.

use std::collections::VecDeque;

use crate::phone::CommandRecord;

/// How many of the newest records the log keeps (a record is a few hundred bytes, so the
/// ring stays within a few MiB). Far more than one test sends.
pub const KEPT: usize = 10_000;

/// How many injection records are kept besides the ring; later ones are only counted.
/// An injection is a bug in the client, so one is enough to fail a test.
pub const INJECTIONS_KEPT: usize = 1_000;

/// The log.
#[derive(Debug, Default)]
pub(crate) struct Records {
    ring: VecDeque<CommandRecord>,
    injections: Vec<CommandRecord>,
    injection_count: u64,
}

impl Records {
    /// Adds a record, dropping the oldest one past [`KEPT`].
    pub(crate) fn push(&mut self, rec: CommandRecord) {
        if rec.injection {
            self.injection_count += 1;
            if self.injections.len() < INJECTIONS_KEPT {
                self.injections.push(rec.clone());
            }
        }
        if self.ring.len() == KEPT {
            self.ring.pop_front();
        }
        self.ring.push_back(rec);
    }

    /// The records the ring holds, oldest first.
    pub(crate) fn recent(&self) -> Vec<CommandRecord> {
        self.ring.iter().cloned().collect()
    }

    /// Every injection record kept, oldest first, whether or not the ring still holds it.
    pub(crate) fn injections(&self) -> Vec<CommandRecord> {
        self.injections.clone()
    }

    /// How many injection records were received, kept or not.
    pub(crate) fn injection_count(&self) -> u64 {
        self.injection_count
    }

    /// Forgets everything.
    pub(crate) fn clear(&mut self) {
        *self = Records::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(seq: u64, injection: bool) -> CommandRecord {
        CommandRecord {
            seq,
            injection,
            ..CommandRecord::empty()
        }
    }

    #[test]
    fn the_ring_keeps_the_newest_and_every_injection_is_kept() {
        let mut log = Records::default();
        log.push(rec(1, false));
        log.push(rec(2, true));
        for seq in 3..=(KEPT as u64 + 50) {
            log.push(rec(seq, false));
        }
        let recent = log.recent();
        assert_eq!(recent.len(), KEPT);
        assert_eq!(recent.first().unwrap().seq, 51);
        assert_eq!(recent.last().unwrap().seq, KEPT as u64 + 50);
        let inj = log.injections();
        assert_eq!(inj.len(), 1);
        assert_eq!(
            inj[0].seq, 2,
            "an injection the ring dropped is still reported"
        );
        assert_eq!(log.injection_count(), 1);
    }

    #[test]
    fn injections_past_the_kept_ones_are_counted() {
        let mut log = Records::default();
        for seq in 1..=(INJECTIONS_KEPT as u64 + 5) {
            log.push(rec(seq, true));
        }
        assert_eq!(log.injections().len(), INJECTIONS_KEPT);
        assert_eq!(log.injection_count(), INJECTIONS_KEPT as u64 + 5);
        log.clear();
        assert!(log.recent().is_empty() && log.injections().is_empty());
    }
}
