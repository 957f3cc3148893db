use shop_core::billing::Invoice;
use std::collections::HashMap;

fn main() {
    let invoices: HashMap<u32, Invoice> = HashMap::new();
    println!("{}", invoices.len());
}
