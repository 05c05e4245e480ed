-- The typed relations: flags as BOOLEAN, JSON arrays as lists, the main JSON values as columns, opening
-- hours and closures as rows. Those that parse JSON and dates are stored, not computed on every query:
-- a build is written once and read-only afterwards, so what they derive from the tables cannot go
-- stale. Each is defined once, as a view in ctool_derive (which no query may name); its table in main
-- is created from that view with no rows (CREATE TABLE AS keeps the columns, types and collations), and
-- Fill (migrations/fill.go) copies the view into it after the load, in the order ctool_meta.derived
-- lists. An empty cell is NULL in the raw tables and means unknown, in the typed relations too: a flag
-- is true where its cell holds the flag's value and NULL where the cell is empty, never false for
-- "not said".
CREATE SCHEMA ctool_derive;

-- What Fill copies, in order: target relation, then the view that computes it.
CREATE TABLE ctool_meta.derived (
    position INTEGER PRIMARY KEY,
    target   VARCHAR NOT NULL,
    source   VARCHAR NOT NULL
);

-- The cells validation could not type: Fill writes one row per row of events and of stores, in the
-- table's order, listing the columns whose cells could not be typed (NULL when none). The *_known views
-- are the tables with those cells NULL, so every typed value derived from them is NULL, unknown, while
-- the typed relations still show the cells as written.
CREATE TABLE ctool_derive.events_unknown (unknown VARCHAR[]);
CREATE TABLE ctool_derive.stores_unknown (unknown VARCHAR[]);
CREATE VIEW ctool_derive.events_known AS
SELECT e.* REPLACE (
        CASE WHEN NOT list_contains(coalesce(u.unknown, []), 'date_time') THEN e.date_time END AS date_time,
        CASE WHEN NOT list_contains(coalesce(u.unknown, []), 'location') THEN e.location END AS location,
        CASE WHEN NOT list_contains(coalesce(u.unknown, []), 'cost') THEN e.cost END AS cost,
        CASE WHEN NOT list_contains(coalesce(u.unknown, []), 'registration_required') THEN e.registration_required END AS registration_required,
        CASE WHEN NOT list_contains(coalesce(u.unknown, []), 'target_audience') THEN e.target_audience END AS target_audience
    )
FROM main.events e POSITIONAL JOIN ctool_derive.events_unknown u;
CREATE VIEW ctool_derive.stores_known AS
SELECT s.* REPLACE (
        CASE WHEN NOT list_contains(coalesce(u.unknown, []), 'opening_hours') THEN s.opening_hours END AS opening_hours,
        CASE WHEN NOT list_contains(coalesce(u.unknown, []), 'irregular_closures') THEN s.irregular_closures END AS irregular_closures,
        CASE WHEN NOT list_contains(coalesce(u.unknown, []), 'Biz_Entertainment_Available') THEN s.Biz_Entertainment_Available END AS Biz_Entertainment_Available,
        CASE WHEN NOT list_contains(coalesce(u.unknown, []), 'pets_allowed') THEN s.pets_allowed END AS pets_allowed,
        CASE WHEN NOT list_contains(coalesce(u.unknown, []), 'target_audience') THEN s.target_audience END AS target_audience,
        CASE WHEN NOT list_contains(coalesce(u.unknown, []), 'parking') THEN s.parking END AS parking,
        CASE WHEN NOT list_contains(coalesce(u.unknown, []), 'private_room') THEN s.private_room END AS private_room,
        CASE WHEN NOT list_contains(coalesce(u.unknown, []), 'kids_info') THEN s.kids_info END AS kids_info
    )
FROM main.stores s POSITIONAL JOIN ctool_derive.stores_unknown u;

-- store_id and store_name: the store the venue (location.venue) names, schema.Venues: Fill writes one
-- row per event, in the table's order, and the view joins them by position.
CREATE TABLE ctool_derive.event_stores (
    store_id   VARCHAR,
    store_name VARCHAR
);
-- weekdays: the days of the week an event is held on when its text says it is held on some only
-- ("毎週土曜", "月曜休館"), schema.EventWeekdays of its name, description and additional_info; NULL when
-- every day or not said. One row per event, in the table's order.
CREATE TABLE ctool_derive.event_weekdays (weekdays VARCHAR[]);
CREATE VIEW ctool_derive.events_typed AS
SELECT e.* REPLACE (
        k.registration_required = 'True' AS registration_required,
        CAST(CAST(k.target_audience AS JSON) AS VARCHAR[]) AS target_audience
    ),
    CAST(split_part(k.date_time, '/', 1) AS DATE) AS start_date,
    CAST(CASE WHEN contains(k.date_time, '/') THEN split_part(k.date_time, '/', 2) ELSE k.date_time END AS DATE) AS end_date,
    json_extract_string(k.location, '$.venue') AS venue,
    json_extract_string(k.location, '$.address') AS address,
    CAST(json_extract(k.cost, '$.is_free') AS BOOLEAN) AS is_free,
    es.store_id,
    es.store_name,
    ew.weekdays
FROM main.events e POSITIONAL JOIN ctool_derive.events_known k POSITIONAL JOIN ctool_derive.event_stores es
    POSITIONAL JOIN ctool_derive.event_weekdays ew;
CREATE TABLE events_typed AS SELECT * FROM ctool_derive.events_typed WITH NO DATA;

-- Opening hours as rows, so "which cafes are open now?" is one SELECT (with is_open, 004). The rows are
-- schema.ReadHours of each store's opening_hours, JSON or text: Fill writes them to ctool_derive.hours.
-- A close time at or before the open time means the store closes after midnight; late-night times
-- ("26:00") are the next day's (02:00, overnight), and an opening at 24:00 or later is the next day's
-- row. day 'holiday' holds the hours on Japan's public holidays, where the text gives them (土日祝).
-- day compares without case, a label: day = dayname(tokyo_now()) works as written.
CREATE TABLE ctool_derive.hours (
    store_id   VARCHAR,
    store_name VARCHAR,
    day        VARCHAR,
    n          INTEGER,
    opens      TIME,
    closes     TIME,
    overnight  BOOLEAN
);
CREATE VIEW ctool_derive.store_hours AS
SELECT store_id, store_name, day COLLATE NOCASE AS day, opens, closes, overnight
FROM ctool_derive.hours
ORDER BY store_id, n, opens;
CREATE TABLE store_hours AS SELECT * FROM ctool_derive.store_hours WITH NO DATA;

-- Irregular closures as rows: the store is closed all that day.
CREATE VIEW ctool_derive.store_closures AS
WITH closures AS (
    SELECT store_id, store_name,
        unnest(from_json(irregular_closures, '[{"type": "VARCHAR", "date": "VARCHAR", "reason": "VARCHAR"}]')) AS c
    FROM ctool_derive.stores_known
    WHERE irregular_closures IS NOT NULL
)
SELECT store_id, store_name, CAST(c.date AS DATE) AS date, c.type COLLATE NOCASE AS type, c.reason AS reason
FROM closures
ORDER BY store_id, date;
CREATE TABLE store_closures AS SELECT * FROM ctool_derive.store_closures WITH NO DATA;

-- hours_known tells "hours unknown" (the extraction found none: no store_hours rows) from "closed on a
-- day" (a known week without that day), so a NOT EXISTS over store_hours does not list unknown stores
-- as closed; it reads store_hours as stored, which Fill fills first. The offers (vegan_available and
-- the rest, schema.Topics) are schema.ReadOffer of the stores' text, and their caveats (vegan_caveat
-- and the rest) schema.ReadCaveat's clause that limits an offer: Fill writes one row per store, in the
-- table's order, and the view joins them by position.
CREATE TABLE ctool_derive.store_offers (
    vegan_available        BOOLEAN,
    halal_available        BOOLEAN,
    gluten_free_available  BOOLEAN,
    wheelchair_accessible  BOOLEAN,
    nursing_room_available BOOLEAN,
    vegan_caveat           VARCHAR,
    halal_caveat           VARCHAR,
    gluten_free_caveat     VARCHAR,
    wheelchair_caveat      VARCHAR,
    nursing_room_caveat    VARCHAR
);
CREATE VIEW ctool_derive.stores_typed AS
SELECT s.* REPLACE (
        k.Biz_Entertainment_Available = 'TRUE' AS Biz_Entertainment_Available,
        k.pets_allowed = 'TRUE' AS pets_allowed,
        CAST(CAST(k.target_audience AS JSON) AS VARCHAR[]) AS target_audience
    ),
    CAST(json_extract(k.parking, '$.available') AS BOOLEAN) AS parking_available,
    CAST(json_extract(k.parking, '$.capacity') AS INTEGER) AS parking_capacity,
    CAST(json_extract(k.private_room, '$.available') AS BOOLEAN) AS private_room_available,
    CAST(json_extract(k.private_room, '$.capacity') AS INTEGER) AS private_room_capacity,
    CAST(json_extract(k.kids_info, '$.kids_menu') AS BOOLEAN) AS kids_menu,
    CAST(json_extract(k.kids_info, '$.highchair') AS BOOLEAN) AS highchair,
    CAST(json_extract(k.kids_info, '$.diaper_changing') AS BOOLEAN) AS diaper_changing,
    s.store_id IN (SELECT store_id FROM main.store_hours) AS hours_known,
    o.*
FROM main.stores s POSITIONAL JOIN ctool_derive.stores_known k POSITIONAL JOIN ctool_derive.store_offers o;
CREATE TABLE stores_typed AS SELECT * FROM ctool_derive.stores_typed WITH NO DATA;

INSERT INTO ctool_meta.derived VALUES
    (1, 'main.events_typed', 'ctool_derive.events_typed'),
    (2, 'main.store_hours', 'ctool_derive.store_hours'),
    (3, 'main.store_closures', 'ctool_derive.store_closures'),
    (4, 'main.stores_typed', 'ctool_derive.stores_typed');

-- price_yen and price_max_yen: what a visitor pays, read from the description ("1,000円", "２９８円",
-- "650 yen", 税込 over 本体 when both are given), the lowest and, where several prices are listed, the
-- highest; schema.ReadPrice, stored at ingest: Fill writes one row per products row, in the table's
-- order, and the view joins them by position. Only the prices are stored: a second copy of every
-- products row, the stored relations' way, costs the ingest of a large products file more than its
-- budget (bench/results/typed-columns.md), and the join costs a query a few milliseconds at a million
-- rows.
-- price_unread: the description holds a price the rule could not read (時価, 店頭にて), which the
-- answers' notes and the console point out.
CREATE TABLE ctool_derive.product_prices (price_yen INTEGER, price_max_yen INTEGER, price_unread BOOLEAN);
CREATE VIEW products_typed AS
SELECT p.*, pr.price_yen, pr.price_max_yen
FROM main.products p POSITIONAL JOIN ctool_derive.product_prices pr;
