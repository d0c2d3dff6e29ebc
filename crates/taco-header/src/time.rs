//! MS-DOS timestamps, as ZIP stores them.

use core::fmt;

/// An MS-DOS date and time: two-second resolution, years 1980 to 2107, no time zone.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DosDateTime {
    // Date first so that the derived ordering is chronological.
    date: u16,
    time: u16,
}

impl DosDateTime {
    /// 1980-01-01 00:00:00, the earliest representable time. binfmt writes it by default
    /// so that the same input always gives the same bytes.
    pub const EPOCH: DosDateTime = DosDateTime {
        date: (1 << 5) | 1,
        time: 0,
    };

    /// The given calendar time, or `None` when a field is out of range (year
    /// 1980..=2107, month 1..=12, day 1..=31, hour < 24, minute < 60, second < 60; odd
    /// seconds are rounded down, as the format stores two-second steps).
    #[must_use]
    pub const fn new(
        year: u16,
        month: u8,
        day: u8,
        hour: u8,
        minute: u8,
        second: u8,
    ) -> Option<Self> {
        if year < 1980 || year > 2107 || month == 0 || month > 12 || day == 0 || day > 31 {
            return None;
        }
        if hour > 23 || minute > 59 || second > 59 {
            return None;
        }
        let date = ((year - 1980) << 9) | ((month as u16) << 5) | day as u16;
        let time = ((hour as u16) << 11) | ((minute as u16) << 5) | (second as u16 / 2);
        Some(DosDateTime { date, time })
    }

    /// The raw fields, as stored.
    #[must_use]
    pub const fn from_raw(date: u16, time: u16) -> Self {
        DosDateTime { date, time }
    }

    /// The raw date field.
    #[must_use]
    pub const fn date(&self) -> u16 {
        self.date
    }

    /// The raw time field.
    #[must_use]
    pub const fn time(&self) -> u16 {
        self.time
    }
}

impl Default for DosDateTime {
    fn default() -> Self {
        DosDateTime::EPOCH
    }
}

impl fmt::Display for DosDateTime {
    /// `YYYY-MM-DD hh:mm:ss`, fields as stored (not checked for range).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (d, t) = (self.date, self.time);
        write!(
            f,
            "{:04}-{:02}-{:02} {:02}:{:02}:{:02}",
            1980 + (d >> 9),
            (d >> 5) & 0xf,
            d & 0x1f,
            t >> 11,
            (t >> 5) & 0x3f,
            (t & 0x1f) * 2
        )
    }
}

impl fmt::Debug for DosDateTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::string::ToString;

    #[test]
    fn round_trip() {
        let t = DosDateTime::new(2025, 11, 22, 14, 25, 31).unwrap();
        assert_eq!(t.to_string(), "2025-11-22 14:25:30");
        assert_eq!(DosDateTime::EPOCH.to_string(), "1980-01-01 00:00:00");
        assert_eq!(
            DosDateTime::new(1980, 1, 1, 0, 0, 0),
            Some(DosDateTime::EPOCH)
        );
        assert!(DosDateTime::new(1979, 1, 1, 0, 0, 0).is_none());
        assert!(DosDateTime::new(2000, 13, 1, 0, 0, 0).is_none());
        // The reference fixture's timestamp.
        assert_eq!(
            DosDateTime::from_raw(0x5d76, 0x6554).to_string(),
            "2026-11-22 12:42:40"
        );
    }
}
