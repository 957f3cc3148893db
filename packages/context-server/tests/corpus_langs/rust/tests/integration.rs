mod common;

use shop_core::model::User;

#[test]
fn names_a_customer() {
    let user = User { name: "ann".into() };
    assert_eq!(common::fixture(), user.name.len() as u32 - 2);
}
