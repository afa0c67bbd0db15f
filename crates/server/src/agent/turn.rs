//! One turn per device: an action's look-up (the element list its ref or selector is found
//! on, the screen-size check of its point) and the action itself are one step, so another
//! call's action on the same device, from this session or another, cannot land between
//! them and move the screen under a tap. Actions take their turn before the look-up and
//! give it back once the device took the action, before the settle wait.
//!
//! Not for: reads that act on nothing (listing, screenshots, waits) or a device's own
//! serialisation of its input.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use mobile_device::Device;
use rmcp::RoleServer;
use rmcp::service::RequestContext;

use crate::tools::{Failure, MobileServer};

/// The turn locks, by device id, shared by every session of a server.
#[derive(Debug, Default)]
pub(crate) struct Turns(Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>);

/// A device's turn, held until dropped.
pub(crate) type Turn = tokio::sync::OwnedMutexGuard<()>;

impl Turns {
    fn of(&self, device: &str) -> Arc<tokio::sync::Mutex<()>> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(device.to_string())
            .or_default()
            .clone()
    }
}

impl MobileServer {
    /// Waits for `d`'s turn (under the call's deadline and cancellation).
    pub(crate) async fn turn(
        &self,
        ctx: &RequestContext<RoleServer>,
        d: &Arc<dyn Device>,
    ) -> Result<Turn, Failure> {
        let lock = self.turns.of(d.id());
        self.run(ctx, "waiting for the device's previous action", async {
            Ok(lock.lock_owned().await)
        })
        .await
    }
}
