use super::line::Line;
use crate::model::User;
use crate::util::*;

// crate::util::round and crate::billing::line are named in this comment only
pub struct Invoice {
    pub customer: User,
    pub lines: Vec<Line>,
}

impl Invoice {
    pub fn total(&self) -> u64 {
        round(self.lines.iter().map(|line| line.cents).sum())
    }

    pub fn approver(&self) -> Option<crate::model::admin::User> {
        let _label = "super::line::Line";
        None
    }
}
