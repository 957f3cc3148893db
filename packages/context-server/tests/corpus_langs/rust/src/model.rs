pub mod admin;

/// A customer account.
pub struct User {
    pub name: String,
}
