//! Where an action acts, the one way every tool resolves it: an element ref (bound to the
//! observation it came from), a selector (text, id, label; exact or contains) or x,y.
//!
//! All the ends of one action (a drag has two) are resolved on ONE element list. That list
//! is the agent's last observation when the screen's frame hash still equals the one
//! recorded with it (the list was read between two equal hashes, so it is what that frame
//! shows), else a fresh dump; the action's observation reuses it when the screen comes back
//! to rest on the same frame.

use std::sync::Arc;

use mobile_device::{Device, Element, Point, ScreenFingerprint};
use rmcp::RoleServer;
use rmcp::service::RequestContext;

use super::marked::with_at;
use super::selector::short;
use crate::params::{ClipParam, DragEnd, Selector, Target};
use crate::tools::{Failure, MobileServer};

/// One place an action acts, as the call named it.
#[derive(Debug, Clone)]
pub(crate) enum Aim {
    /// An element ref, with its `@`.
    Ref(String),
    /// An element named by text, id or label.
    Select(Selector),
    /// A point in screen coordinates (already checked to be numbers in range).
    At(Point),
}

impl Aim {
    fn needs_list(&self) -> bool {
        !matches!(self, Aim::At(_))
    }
}

/// An aim resolved: the point to act on, and how the first line names it.
#[derive(Debug, Clone)]
pub(crate) struct Aimed {
    pub at: Point,
    /// " (@e5)" or " (@e3 Button \"Buy now\" at 540,900)"; empty for x,y.
    pub what: String,
    /// The element a ref or selector named (`None` for x,y), for the recorder.
    pub element: Option<Element>,
}

/// The element list the aims were resolved on.
#[derive(Debug, Clone)]
pub(crate) struct Lookup {
    pub elements: Vec<Element>,
    /// The frame hash this list is known to show (set when it was the last observation,
    /// reused because the frame had not changed).
    pub paired: Option<ScreenFingerprint>,
}

/// A coordinate checked to be a number of screen coordinates.
pub(crate) fn coord(v: f64, name: &str) -> Result<i32, Failure> {
    if !(0.0..=100_000.0).contains(&v) {
        return Err(Failure(format!(
            "{name} must be between 0 and 100000 screen coordinates, got {v}"
        )));
    }
    Ok(v.round() as i32)
}

impl Target {
    /// What the target names: a ref wins over a selector, a selector over x,y; `None` when
    /// nothing is given; half a point is refused.
    pub(crate) fn aim(&self) -> Result<Option<Aim>, Failure> {
        if let Some(r) = &self.reference {
            return Ok(Some(Aim::Ref(with_at(r))));
        }
        if self.selector.given() {
            return Ok(Some(Aim::Select(self.selector.clone())));
        }
        match (self.x, self.y) {
            (Some(x), Some(y)) => Ok(Some(Aim::At(Point::new(coord(x, "x")?, coord(y, "y")?)))),
            (None, None) => Ok(None),
            _ => Err(Failure(
                "Give either ref (from mobile_list_elements_on_screen), a selector (text, id or label), or both x and y: only one of x, y was given"
                    .into(),
            )),
        }
    }

    /// [`Self::aim`] where the tool needs a place to act.
    pub(crate) fn required(&self) -> Result<Aim, Failure> {
        self.aim()?.ok_or_else(|| {
            Failure(
                "Give either ref (from mobile_list_elements_on_screen), a selector (text, id or label), or both x and y"
                    .into(),
            )
        })
    }
}

impl DragEnd {
    /// What this end names.
    pub(crate) fn aim(&self) -> Result<Aim, Failure> {
        Ok(match self {
            DragEnd::Ref(r) => Aim::Ref(with_at(r)),
            DragEnd::Point(p) => Aim::At(Point::new(coord(p.x, "x")?, coord(p.y, "y")?)),
            DragEnd::Select(s) => select(s.into())?,
        })
    }
}

impl ClipParam {
    /// The element this clip names, if it names one.
    pub(crate) fn aim(&self) -> Result<Option<Aim>, Failure> {
        Ok(match self {
            ClipParam::Ref(r) => Some(Aim::Ref(with_at(r))),
            ClipParam::Select(s) => Some(select(s.into())?),
            ClipParam::Rect(_) => None,
        })
    }
}

fn select(s: Selector) -> Result<Aim, Failure> {
    if s.given() {
        Ok(Aim::Select(s))
    } else {
        Err(Failure(
            "A selector needs text, id or label (with match \"exact\" or \"contains\")".into(),
        ))
    }
}

impl MobileServer {
    /// Resolves every aim of one action on one element list (read only if an aim names an
    /// element). Points are checked to lie on the screen. A ref or selector that cannot be
    /// acted on is refused (with candidates) before anything reaches the device.
    pub(crate) async fn aim(
        &self,
        ctx: &RequestContext<RoleServer>,
        d: &Arc<dyn Device>,
        aims: &[&Aim],
    ) -> Result<(Vec<Aimed>, Option<Lookup>), Failure> {
        let lookup = if aims.iter().any(|a| a.needs_list()) {
            Some(self.lookup(ctx, d).await?)
        } else {
            None
        };
        let mut out = Vec::with_capacity(aims.len());
        for aim in aims {
            out.push(match aim {
                Aim::At(p) => {
                    self.on_screen(ctx, d, *p).await?;
                    Aimed {
                        at: *p,
                        what: String::new(),
                        element: None,
                    }
                }
                named => {
                    let l = lookup.as_ref().expect("a list was read for an element");
                    let e = self.element_on(d, named, &l.elements, l.paired.as_ref())?;
                    let what = match named {
                        Aim::Ref(r) => format!(" ({r})"),
                        _ => format!(" ({})", short(&e)),
                    };
                    Aimed {
                        at: e.rect.center(),
                        what,
                        element: Some(e),
                    }
                }
            });
        }
        Ok((out, lookup))
    }

    /// The element a ref or selector names in `elements` (the screen now; `paired`: the
    /// frame hash that list is known to show). A refusal makes `elements` the agent's
    /// last look, since its candidates carry their refs.
    pub(crate) fn element_on(
        &self,
        d: &Arc<dyn Device>,
        aim: &Aim,
        elements: &[Element],
        paired: Option<&ScreenFingerprint>,
    ) -> Result<Element, Failure> {
        match aim {
            Aim::Ref(r) => self.resolve_ref(d, r, elements, paired),
            Aim::Select(s) => s.find(elements).cloned().map_err(|why| {
                self.observed
                    .record_paired(d.id(), elements, paired.cloned());
                Failure(why)
            }),
            Aim::At(p) => Err(Failure(format!(
                "({}, {}) is a point, not an element",
                p.x, p.y
            ))),
        }
    }

    /// The element list to resolve refs and selectors on: the last observation if the
    /// frame it was read on is still the one on screen, else a fresh dump.
    async fn lookup(
        &self,
        ctx: &RequestContext<RoleServer>,
        d: &Arc<dyn Device>,
    ) -> Result<Lookup, Failure> {
        if let Some(obs) = self.observed.last(d.id())
            && let Some(fp) = obs.fingerprint.clone()
        {
            let now = self
                .run(ctx, "fingerprinting the screen", async {
                    Ok(d.screen_fingerprint().await)
                })
                .await?;
            if now.as_ref().ok() == Some(&fp) {
                return Ok(Lookup {
                    elements: obs.elements,
                    paired: Some(fp),
                });
            }
        }
        let elements = self.elements(ctx, d).await?;
        Ok(Lookup {
            elements,
            paired: None,
        })
    }
}
