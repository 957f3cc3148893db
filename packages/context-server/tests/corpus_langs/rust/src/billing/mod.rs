mod invoice;
mod line;

pub use self::invoice::Invoice;
