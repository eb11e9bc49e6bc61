//! Calendar days (UTC): the clock dated rules are evaluated against.

use std::fmt;

use serde::Serialize;

/// A calendar day (UTC), the clock policies are evaluated against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date {
    year: u16,
    month: u8,
    day: u8,
}

impl Date {
    /// 1970-01-01, the clock's origin.
    pub(crate) const EPOCH: Date = Date {
        year: 1970,
        month: 1,
        day: 1,
    };

    /// Parses `YYYY-MM-DD` (a real calendar day, years 1970 to 9999).
    pub fn parse(text: &str) -> Result<Date, String> {
        let invalid = || format!("{text:?} is not a date of the form YYYY-MM-DD");
        let bytes = text.as_bytes();
        if bytes.len() != 10
            || bytes[4] != b'-'
            || bytes[7] != b'-'
            || !bytes
                .iter()
                .enumerate()
                .all(|(index, byte)| index == 4 || index == 7 || byte.is_ascii_digit())
        {
            return Err(invalid());
        }
        let year: u16 = text[0..4].parse().map_err(|_| invalid())?;
        let month: u8 = text[5..7].parse().map_err(|_| invalid())?;
        let day: u8 = text[8..10].parse().map_err(|_| invalid())?;
        let leap =
            year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400));
        let days_in_month = match month {
            1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
            4 | 6 | 9 | 11 => 30,
            2 if leap => 29,
            2 => 28,
            _ => return Err(format!("{text:?}: month {month} does not exist")),
        };
        if year < 1970 || day == 0 || day > days_in_month {
            return Err(format!("{text:?}: no such day"));
        }
        Ok(Date { year, month, day })
    }

    /// A date written in the registry; a malformed one is a bug caught by the registry's tests.
    pub(crate) fn of_static(text: &'static str) -> Date {
        Date::parse(text).unwrap_or(Date {
            year: 1970,
            month: 1,
            day: 1,
        })
    }

    /// Today (UTC) from the system clock.
    pub fn today() -> Date {
        today_utc()
    }

    /// The day `days` after 1970-01-01 (civil-from-days, H. Hinnant).
    pub fn from_days_since_epoch(days: u64) -> Date {
        civil_from_days(days)
    }

    /// The day before (for "approved until" displays of a transition starting on `self`).
    pub fn previous_day(self) -> Date {
        if self.day > 1 {
            return Date {
                day: self.day - 1,
                ..self
            };
        }
        if self.month > 1 {
            let month = self.month - 1;
            let mut day = 31;
            while Date::parse(&format!("{:04}-{month:02}-{day:02}", self.year)).is_err() {
                day -= 1;
            }
            return Date { month, day, ..self };
        }
        Date {
            year: self.year.saturating_sub(1),
            month: 12,
            day: 31,
        }
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

impl Serialize for Date {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// Today's date (UTC), from the system clock.
fn today_utc() -> Date {
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs());
    Date::from_days_since_epoch(seconds / 86_400)
}

fn civil_from_days(days: u64) -> Date {
    let days = i64::try_from(days).unwrap_or(0) + 719_468;
    let era = days.div_euclid(146_097);
    let day_of_era = days.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    Date {
        year: u16::try_from(year).unwrap_or(9999),
        month: u8::try_from(month).unwrap_or(1),
        day: u8::try_from(day).unwrap_or(1),
    }
}
