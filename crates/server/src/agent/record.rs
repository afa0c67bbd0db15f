//! The recorder: per session and device, the actions that succeeded, each with the
//! element it actually hit, the element list it was found on and the list the
//! observation after it showed, for `mobile_export_flow` (`mobile_flow::export_flow`).
//!
//! One hook: an action tool calls [`MobileServer::record`] once its action reached the
//! device, and the observation after it (`after_action_seen`) hands its element list to
//! [`Recorder::observed`], which fills in the step just recorded. Memory is bounded: the
//! last [`MAX_STEPS`] steps per device are kept.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use mobile_device::{Device, Element};
use mobile_flow::{RecordedAction, RecordedStep, row_anchor};

use super::aim::{Aimed, Lookup};
use crate::tools::MobileServer;

/// The most steps kept per device; older ones are dropped first.
pub(crate) const MAX_STEPS: usize = 500;

/// What this session did on each device.
#[derive(Default)]
pub(crate) struct Recorder {
    steps: Mutex<HashMap<String, Steps>>,
}

#[derive(Default)]
struct Steps {
    kept: VecDeque<RecordedStep>,
    /// Steps dropped past [`MAX_STEPS`].
    dropped: usize,
}

impl Recorder {
    fn push(&self, device: &str, step: RecordedStep) {
        let mut all = self.steps.lock().unwrap_or_else(|e| e.into_inner());
        let s = all.entry(device.to_string()).or_default();
        if s.kept.len() == MAX_STEPS {
            s.kept.pop_front();
            s.dropped += 1;
        }
        s.kept.push_back(step);
    }

    /// The element list the observation after the last recorded action showed.
    pub(crate) fn observed(&self, device: &str, now: &[Element]) {
        let mut all = self.steps.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(last) = all.get_mut(device).and_then(|s| s.kept.back_mut())
            && last.after.is_none()
        {
            last.after = Some(now.to_vec());
        }
    }

    /// The steps kept for `device`, oldest first, and how many were dropped before them.
    pub(crate) fn steps(&self, device: &str) -> (Vec<RecordedStep>, usize) {
        let all = self.steps.lock().unwrap_or_else(|e| e.into_inner());
        all.get(device)
            .map(|s| (s.kept.iter().cloned().collect(), s.dropped))
            .unwrap_or_default()
    }
}

impl MobileServer {
    /// Records an action that succeeded on `d`: `aimed` is where it acted (with the
    /// element, when a ref or selector named one) and `lookup` the list it was found on.
    pub(crate) fn record(
        &self,
        d: &Arc<dyn Device>,
        action: RecordedAction,
        aimed: Option<&Aimed>,
        lookup: Option<&Lookup>,
    ) {
        let mut step = RecordedStep::new(action);
        if let (Some(a), Some(l)) = (aimed, lookup) {
            step.element = a.element.clone();
            step.screen = l.elements.clone();
            step.anchor = a
                .element
                .as_ref()
                .and_then(|e| l.elements.iter().position(|x| x == e))
                .and_then(|i| row_anchor(&l.elements, i));
        }
        self.recorder.push(d.id(), step);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tap(i: i32) -> RecordedStep {
        RecordedStep::new(RecordedAction::Tap {
            at: mobile_device::Point::new(i, i),
        })
    }

    #[test]
    fn the_recorder_keeps_the_last_steps_per_device_and_their_observation() {
        let r = Recorder::default();
        for i in 0..=MAX_STEPS as i32 {
            r.push("a", tap(i));
        }
        r.push("b", tap(7));
        let seen = vec![Element {
            text: Some("Done".into()),
            ..Default::default()
        }];
        r.observed("a", &seen);
        // A second observation does not overwrite the first one of that step.
        r.observed("a", &[]);
        let (steps, dropped) = r.steps("a");
        assert_eq!((steps.len(), dropped), (MAX_STEPS, 1));
        assert_eq!(steps[0], tap(1), "the oldest went first");
        assert_eq!(
            steps.last().unwrap().after.as_deref(),
            Some(seen.as_slice())
        );
        assert_eq!(r.steps("b").0, vec![tap(7)], "devices apart");
    }
}
