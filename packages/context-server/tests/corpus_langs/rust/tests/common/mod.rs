pub fn fixture() -> u32 {
    1
}
