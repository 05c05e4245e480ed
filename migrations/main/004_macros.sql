-- The macros queries may call (schema.Macros): the time in Tokyo and whether a store is open then.

-- The local time in Tokyo (no daylight saving), as a TIMESTAMP to pass to is_open().
CREATE MACRO tokyo_now() AS CAST(timezone('Asia/Tokyo', now()) AS TIMESTAMP);

-- Japan's public holidays (schema.Holidays, a dated table from the Cabinet Office), which Fill writes:
-- on those dates a store with 'holiday' rows in store_hours keeps those hours instead of the weekday's.
CREATE TABLE ctool_meta.public_holidays (
    date DATE PRIMARY KEY,
    name VARCHAR NOT NULL
);

-- is_open(store_id, ts): is the store open at local Tokyo time ts? An interval that runs past midnight
-- belongs to the day it opened, and a closure date closes that day's intervals. A day's intervals are
-- its weekday's, or on a public holiday the store's 'holiday' ones where it has any.
-- The arguments are first bound in a FROM-less subquery: a macro substitutes its arguments as written,
-- so a caller's `store_id` used directly inside a subquery over store_hours would bind to
-- store_hours.store_id instead of the caller's row.
CREATE MACRO is_open(sid, ts) AS EXISTS (
    SELECT 1
    FROM (SELECT sid AS arg_store_id, CAST(ts AS TIMESTAMP) AS arg_ts) a0
    CROSS JOIN LATERAL (SELECT a0.arg_store_id AS arg_store_id, a0.arg_ts AS arg_ts,
            CASE WHEN EXISTS (SELECT 1 FROM store_hours x WHERE x.store_id = a0.arg_store_id AND x.day = 'holiday')
                THEN CAST(a0.arg_ts AS DATE) IN (SELECT date FROM ctool_meta.public_holidays) ELSE false END AS today_holiday,
            CASE WHEN EXISTS (SELECT 1 FROM store_hours x WHERE x.store_id = a0.arg_store_id AND x.day = 'holiday')
                THEN CAST(a0.arg_ts AS DATE) - 1 IN (SELECT date FROM ctool_meta.public_holidays) ELSE false END AS yesterday_holiday) a
    JOIN store_hours h ON h.store_id = a.arg_store_id
    WHERE (h.day = CASE WHEN a.today_holiday THEN 'holiday' ELSE lower(dayname(CAST(a.arg_ts AS DATE))) END
            AND CAST(a.arg_ts AS TIME) >= h.opens
            AND (h.overnight OR CAST(a.arg_ts AS TIME) < h.closes)
            AND NOT EXISTS (SELECT 1 FROM store_closures c
                            WHERE c.store_id = a.arg_store_id AND c.date = CAST(a.arg_ts AS DATE)))
       OR (h.overnight
            AND h.day = CASE WHEN a.yesterday_holiday THEN 'holiday' ELSE lower(dayname(CAST(a.arg_ts AS DATE) - 1)) END
            AND CAST(a.arg_ts AS TIME) < h.closes
            AND NOT EXISTS (SELECT 1 FROM store_closures c
                            WHERE c.store_id = a.arg_store_id AND c.date = CAST(a.arg_ts AS DATE) - 1))
);
