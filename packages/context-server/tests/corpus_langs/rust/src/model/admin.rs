use super::User as Customer;

/// An administrator: another User, in another module.
pub struct User {
    pub login: String,
}

pub fn promote(customer: &Customer) -> User {
    User { login: customer.name.clone() }
}
