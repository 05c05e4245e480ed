-- Opening hours as rows, closures as rows, and is_open() so "which cafes are open now?" is one SELECT.
-- A close time at or before the open time means the store closes after midnight.
CREATE VIEW store_hours AS
WITH parsed AS (
    SELECT store_id, store_name, from_json(opening_hours, '{
        "monday": [{"open": "VARCHAR", "close": "VARCHAR"}],
        "tuesday": [{"open": "VARCHAR", "close": "VARCHAR"}],
        "wednesday": [{"open": "VARCHAR", "close": "VARCHAR"}],
        "thursday": [{"open": "VARCHAR", "close": "VARCHAR"}],
        "friday": [{"open": "VARCHAR", "close": "VARCHAR"}],
        "saturday": [{"open": "VARCHAR", "close": "VARCHAR"}],
        "sunday": [{"open": "VARCHAR", "close": "VARCHAR"}]}') AS h
    FROM stores
    WHERE opening_hours IS NOT NULL
), days AS (
    SELECT store_id, store_name, unnest([
        {'day': 'monday', 'n': 1, 'intervals': h.monday},
        {'day': 'tuesday', 'n': 2, 'intervals': h.tuesday},
        {'day': 'wednesday', 'n': 3, 'intervals': h.wednesday},
        {'day': 'thursday', 'n': 4, 'intervals': h.thursday},
        {'day': 'friday', 'n': 5, 'intervals': h.friday},
        {'day': 'saturday', 'n': 6, 'intervals': h.saturday},
        {'day': 'sunday', 'n': 7, 'intervals': h.sunday}]) AS d
    FROM parsed
), intervals AS (
    SELECT store_id, store_name, d.day AS day, d.n AS n, unnest(d.intervals) AS iv
    FROM days
)
-- day compares without case (a label, see 005): day = dayname(tokyo_now()) works as written.
SELECT store_id, store_name, day COLLATE NOCASE AS day,
    CAST(iv.open AS TIME) AS opens,
    CAST(iv.close AS TIME) AS closes,
    CAST(iv.close AS TIME) <= CAST(iv.open AS TIME) AS overnight
FROM intervals
ORDER BY store_id, n, opens;

CREATE VIEW store_closures AS
WITH closures AS (
    SELECT store_id, store_name,
        unnest(from_json(irregular_closures, '[{"type": "VARCHAR", "date": "VARCHAR", "reason": "VARCHAR"}]')) AS c
    FROM stores
    WHERE irregular_closures IS NOT NULL
)
SELECT store_id, store_name, CAST(c.date AS DATE) AS date, c.type COLLATE NOCASE AS type, c.reason AS reason
FROM closures
ORDER BY store_id, date;

-- The local time in Tokyo (no daylight saving), as a TIMESTAMP to pass to is_open().
CREATE MACRO tokyo_now() AS CAST(timezone('Asia/Tokyo', now()) AS TIMESTAMP);

-- is_open(store_id, ts): is the store open at local Tokyo time ts? An interval that runs past midnight
-- belongs to the day it opened, and a closure date closes that day's intervals.
-- The arguments are first bound in a FROM-less subquery: a macro substitutes its arguments as written,
-- so a caller's `store_id` used directly inside a subquery over store_hours would bind to
-- store_hours.store_id instead of the caller's row.
CREATE MACRO is_open(sid, ts) AS EXISTS (
    SELECT 1
    FROM (SELECT sid AS arg_store_id, CAST(ts AS TIMESTAMP) AS arg_ts) a
    JOIN store_hours h ON h.store_id = a.arg_store_id
    WHERE (h.day = lower(dayname(CAST(a.arg_ts AS DATE)))
            AND CAST(a.arg_ts AS TIME) >= h.opens
            AND (h.overnight OR CAST(a.arg_ts AS TIME) < h.closes)
            AND NOT EXISTS (SELECT 1 FROM store_closures c
                            WHERE c.store_id = a.arg_store_id AND c.date = CAST(a.arg_ts AS DATE)))
       OR (h.overnight
            AND h.day = lower(dayname(CAST(a.arg_ts AS DATE) - 1))
            AND CAST(a.arg_ts AS TIME) < h.closes
            AND NOT EXISTS (SELECT 1 FROM store_closures c
                            WHERE c.store_id = a.arg_store_id AND c.date = CAST(a.arg_ts AS DATE) - 1))
);
