pub fn round(cents: u64) -> u64 {
    cents - cents % 5
}
