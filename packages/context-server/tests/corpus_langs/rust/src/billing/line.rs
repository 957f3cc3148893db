pub struct Line {
    pub cents: u64,
}
