//! `cmd device_state` (`print-states`, `state [reset|ID]`): the device-state service that
//! foldables switch postures through.
//!
//! Modelled on AOSP `services/core/java/com/android/server/devicestate/
//! DeviceStateManagerShellCommand.java` (`runPrintStates`: `Supported states: [`, then
//! `"  " + state + ",\n"` per state, then `]`; `printState`: `Committed state: …`; `runState`:
//! an identifier that is not a number prints `Error: requested state should be an integer`,
//! an unsupported one `Error: …` and the hint to run `print-states`, both on stderr and exit
//! -1) and `DeviceState.java` (`toString`: `DeviceState{identifier=N, name='NAME',
//! app_accessible=true, cancel_when_requester_not_on_top=false}`).
//!
//! Profiles: by default the phone is not a foldable and lists only `DEFAULT` (identifier 0),
//! the state `DeviceStateProviderImpl` (`services/core/java/com/android/server/policy/`)
//! reports without a device-state configuration. [`PhoneState::make_foldable`] gives it the
//! states of AOSP's hinge-sensor configuration (`DeviceStateProviderImplTest`): 1 CLOSED,
//! 2 HALF_OPENED, 3 OPENED, opened at first.
//!
//! The profile and the committed state are kept in two testkit properties (`getprop` shows
//! them), so the phone's state needs no new fields.

use super::*;

/// The property holding the supported states, `ID:NAME` comma-separated (absent: DEFAULT).
const STATES_PROP: &str = "vphone.device_state.states";
/// The property holding the requested (committed) state's identifier.
const STATE_PROP: &str = "vphone.device_state.state";

impl PhoneState {
    /// Makes the phone a foldable with CLOSED (1), HALF_OPENED (2) and OPENED (3), opened.
    pub fn make_foldable(&mut self) {
        self.props
            .insert(STATES_PROP.into(), "1:CLOSED,2:HALF_OPENED,3:OPENED".into());
        self.props.insert(STATE_PROP.into(), "3".into());
    }

    /// The supported device states: `(identifier, name)`.
    pub fn device_states(&self) -> Vec<(i64, String)> {
        match self.props.get(STATES_PROP) {
            None => vec![(0, "DEFAULT".into())],
            Some(list) => list
                .split(',')
                .filter_map(|s| {
                    let (id, name) = s.split_once(':')?;
                    Some((id.parse().ok()?, name.to_string()))
                })
                .collect(),
        }
    }

    /// The committed device state's identifier.
    pub fn device_state(&self) -> i64 {
        self.props
            .get(STATE_PROP)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| self.device_states().first().map_or(0, |s| s.0))
    }
}

fn describe(id: i64, name: &str) -> String {
    format!(
        "DeviceState{{identifier={id}, name='{name}', app_accessible=true, cancel_when_requester_not_on_top=false}}"
    )
}

pub(super) fn device_state(ctx: &mut Ctx, args: &[String]) -> Res {
    let states = ctx.with_state(|s| s.device_states());
    match args.first().map(String::as_str) {
        Some("print-states") => {
            let mut out = String::from("Supported states: [\n");
            for (id, name) in &states {
                out.push_str(&format!("  {},\n", describe(*id, name)));
            }
            out.push_str("]\n");
            ctx.print(&out)?;
            Ok(0)
        }
        Some("state") => match args.get(1).map(String::as_str) {
            None => {
                let now = ctx.with_state(|s| s.device_state());
                let name = states
                    .iter()
                    .find(|s| s.0 == now)
                    .map_or("DEFAULT".to_string(), |s| s.1.clone());
                ctx.print(&format!("Committed state: {}\n", describe(now, &name)))?;
                Ok(0)
            }
            Some("reset") => {
                ctx.with_state(|s| s.props.remove(STATE_PROP));
                Ok(0)
            }
            Some(arg) => {
                let Ok(id) = arg.parse::<i64>() else {
                    ctx.eprint("Error: requested state should be an integer\n")?;
                    return Ok(255);
                };
                if !states.iter().any(|s| s.0 == id) {
                    ctx.eprint(&format!(
                        "Error: Requested state: {id} is not supported.\n-------------------\nRun:\n\n    print-states\n\nto get the list of currently supported device states\n"
                    ))?;
                    return Ok(255);
                }
                ctx.with_state(|s| s.props.insert(STATE_PROP.into(), id.to_string()));
                Ok(0)
            }
        },
        _ => {
            ctx.print("Device state manager (device_state) commands:\n  help\n    Print this help text.\n  state [reset|OVERRIDE_DEVICE_STATE]\n    Return or override device state.\n  print-states\n    Return list of currently supported device states.\n")?;
            Ok(0)
        }
    }
}
