//! The fake iOS simulator: a recorded session's export held to a golden file, and its
//! replay on a fresh simulator to the same state.
