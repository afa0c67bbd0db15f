//! Folding: the device-state service (`cmd device_state`), which foldables use to switch
//! between their physical configurations.
//!
//! Source: AOSP `services/core/java/com/android/server/devicestate/
//! DeviceStateManagerShellCommand.java`: `print-states` prints `Supported states: [`, one
//! `  DeviceState{identifier=N, name='NAME', …},` line per state, and `]`; `state N`
//! requests state N (prints nothing; `Error: …` on stderr for an unknown one). A device
//! without a device-state configuration has the one state `DEFAULT` (identifier 0;
//! `services/core/java/com/android/server/policy/DeviceStateProviderImpl.java`,
//! `DEFAULT_DEVICE_STATE`). Foldables' states are named by their configuration; AOSP's
//! hinge-sensor configuration names them CLOSED, HALF_OPENED and OPENED
//! (`DeviceStateProviderImplTest`).

use mobile_device::{DeviceError, FoldState, Platform, Posture, Result};

use super::AndroidDevice;
use crate::quote::command;

/// The state names each posture goes by, in the order they are looked for.
fn names(posture: Posture) -> &'static [&'static str] {
    match posture {
        Posture::Folded => &["CLOSED", "FOLDED"],
        Posture::HalfOpen => &["HALF_OPENED", "HALF_FOLDED", "HALF_OPEN", "TABLETOP"],
        Posture::Open => &["OPENED", "OPEN", "UNFOLDED", "FLAT"],
    }
}

/// The states `cmd device_state print-states` lists.
pub(crate) fn parse_states(out: &str) -> Vec<FoldState> {
    out.lines()
        .filter_map(|l| {
            let rest = l.split("DeviceState{").nth(1)?;
            let id = rest
                .split("identifier=")
                .nth(1)?
                .split(|c: char| !c.is_ascii_digit() && c != '-')
                .next()?
                .parse()
                .ok()?;
            let name = rest.split("name='").nth(1)?.split('\'').next()?.to_string();
            Some(FoldState { id, name })
        })
        .collect()
}

/// The state for `posture` among `states`, or why there is none.
pub(crate) fn choose(states: &[FoldState], posture: Posture) -> Result<FoldState> {
    if let Some(s) = names(posture).iter().find_map(|n| {
        states
            .iter()
            .find(|s| s.name.eq_ignore_ascii_case(n))
            .cloned()
    }) {
        return Ok(s);
    }
    let listed = states
        .iter()
        .map(|s| format!("{} ({})", s.name, s.id))
        .collect::<Vec<_>>()
        .join(", ");
    let hint = if states.len() <= 1 {
        format!("this device is not a foldable: its device-state service lists only {listed}")
    } else {
        format!("this device has no {posture} state; its device states are {listed}")
    };
    Err(DeviceError::unsupported_with_hint(
        format!("folding to {posture}"),
        Platform::Android,
        hint,
    ))
}

impl AndroidDevice {
    /// 2 round trips: `cmd device_state print-states`, then `cmd device_state state ID`.
    pub(super) async fn fold(&self, posture: Posture) -> Result<FoldState> {
        let out = self
            .sh(
                "reading the device states",
                command(&["cmd", "device_state", "print-states"])?,
            )
            .await?;
        if out.contains("Can't find service") || !out.contains("Supported states") {
            return Err(DeviceError::unsupported_with_hint(
                "folding",
                Platform::Android,
                format!(
                    "this device has no device-state service (foldables run Android 12 or later): {}",
                    mobile_device::excerpt(out.trim())
                ),
            ));
        }
        let state = choose(&parse_states(&out), posture)?;
        let out = self
            .sh(
                "changing the device state",
                command(&["cmd", "device_state", "state", &state.id.to_string()])?,
            )
            .await?;
        if out.contains("Error") || out.contains("Exception") {
            return Err(DeviceError::backend(format!(
                "the device refused device state {} ({}): {}",
                state.name,
                state.id,
                mobile_device::excerpt(out.trim())
            )));
        }
        Ok(state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `print-states` of a phone without a device-state configuration, as
    /// `DeviceStateManagerShellCommand.runPrintStates` prints `DeviceState.toString()`.
    const PLAIN: &str = "Supported states: [\n  DeviceState{identifier=0, name='DEFAULT', app_accessible=true, cancel_when_requester_not_on_top=false},\n]\n";
    const FOLDABLE: &str = "Supported states: [\n  DeviceState{identifier=1, name='CLOSED', app_accessible=true, cancel_when_requester_not_on_top=false},\n  DeviceState{identifier=2, name='HALF_OPENED', app_accessible=true, cancel_when_requester_not_on_top=false},\n  DeviceState{identifier=3, name='OPENED', app_accessible=true, cancel_when_requester_not_on_top=false},\n]\n";

    #[test]
    fn postures_pick_the_foldable_states() {
        let states = parse_states(FOLDABLE);
        assert_eq!(states.len(), 3);
        assert_eq!(choose(&states, Posture::HalfOpen).unwrap().id, 2);
        assert_eq!(choose(&states, Posture::Folded).unwrap().name, "CLOSED");
        assert_eq!(choose(&states, Posture::Open).unwrap().id, 3);
    }

    #[test]
    fn a_phone_with_only_default_is_not_a_foldable() {
        let e = choose(&parse_states(PLAIN), Posture::Folded)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("not a foldable") && e.contains("DEFAULT (0)"),
            "{e}"
        );
    }
}
