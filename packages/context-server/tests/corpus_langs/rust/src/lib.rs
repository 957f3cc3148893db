//! The shop: `use crate::model::admin::User` in this doc comment is no use.
pub mod billing;
pub mod model;
mod util;

pub use model::User;
