//! The 2×2 table of two binary outcomes on the same texts, and the macro that defines each named
//! table of the counts over it. Every module that counts or tests paired outcomes builds on
//! this one; it imports none of them.

/// A 2×2 table of two binary outcomes observed on the same texts (the generic form of every
/// paired table of the counts).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PairedTable {
    /// Both outcomes true.
    pub both: u64,
    /// Only the first outcome true.
    pub first_only: u64,
    /// Only the second outcome true.
    pub second_only: u64,
    /// Neither outcome true.
    pub neither: u64,
}

impl PairedTable {
    /// Number of texts.
    pub fn n(&self) -> u64 {
        self.both + self.first_only + self.second_only + self.neither
    }

    /// Texts where the first outcome is true.
    pub fn first(&self) -> u64 {
        self.both + self.first_only
    }

    /// Texts where the second outcome is true.
    pub fn second(&self) -> u64 {
        self.both + self.second_only
    }
}

/// Defines a 2×2 table of two binary outcomes with field names that say what they count (every
/// path spelled out, so a module using it needs no import for it).
macro_rules! paired_counts {
    (
        $(#[$meta:meta])*
        $name:ident ($first:literal, $second:literal) {
            $both:ident, $first_only:ident, $second_only:ident, $neither:ident
        }
    ) => {
        $(#[$meta])*
        #[derive(
            Debug, Clone, Copy, Default, PartialEq, Eq, ::serde::Serialize, ::serde::Deserialize,
        )]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            #[doc = concat!("Texts where both ", $first, " and ", $second, ".")]
            pub $both: u64,
            #[doc = concat!("Texts where only ", $first, ".")]
            pub $first_only: u64,
            #[doc = concat!("Texts where only ", $second, ".")]
            pub $second_only: u64,
            #[doc = concat!("Texts where neither ", $first, " nor ", $second, ".")]
            pub $neither: u64,
        }

        impl $name {
            #[doc = concat!("Adds one text: whether ", $first, ", whether ", $second, ".")]
            #[inline]
            pub fn record(&mut self, first: bool, second: bool) {
                match (first, second) {
                    (true, true) => self.$both += 1,
                    (true, false) => self.$first_only += 1,
                    (false, true) => self.$second_only += 1,
                    (false, false) => self.$neither += 1,
                }
            }

            #[doc = concat!("Adds `n` texts with the same outcome: whether ", $first, ", whether ", $second, ".")]
            #[inline]
            pub fn record_n(&mut self, first: bool, second: bool, n: u64) {
                match (first, second) {
                    (true, true) => self.$both += n,
                    (true, false) => self.$first_only += n,
                    (false, true) => self.$second_only += n,
                    (false, false) => self.$neither += n,
                }
            }

            #[doc = concat!("The generic table: first = ", $first, ", second = ", $second, ".")]
            pub fn table(&self) -> $crate::table::PairedTable {
                $crate::table::PairedTable {
                    both: self.$both,
                    first_only: self.$first_only,
                    second_only: self.$second_only,
                    neither: self.$neither,
                }
            }

            /// Number of texts counted.
            pub fn n(&self) -> u64 {
                self.table().n()
            }
        }

        impl ::std::ops::AddAssign for $name {
            fn add_assign(&mut self, other: $name) {
                self.$both += other.$both;
                self.$first_only += other.$first_only;
                self.$second_only += other.$second_only;
                self.$neither += other.$neither;
            }
        }
    };
}
