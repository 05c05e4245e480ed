-- Typed views: flags as BOOLEAN, JSON arrays as lists, the main JSON values as columns.
-- An empty cell is NULL in the raw tables and means unknown; a flag's empty cell means false.
CREATE VIEW events_typed AS
SELECT * REPLACE (
        coalesce(registration_required = 'True', false) AS registration_required,
        CAST(CAST(target_audience AS JSON) AS VARCHAR[]) AS target_audience
    ),
    CAST(split_part(date_time, '/', 1) AS DATE) AS start_date,
    CAST(CASE WHEN contains(date_time, '/') THEN split_part(date_time, '/', 2) ELSE date_time END AS DATE) AS end_date,
    json_extract_string(location, '$.venue') AS venue,
    json_extract_string(location, '$.address') AS address,
    CAST(json_extract(cost, '$.is_free') AS BOOLEAN) AS is_free
FROM events;

CREATE VIEW stores_typed AS
SELECT * REPLACE (
        coalesce(Biz_Entertainment_Available = 'TRUE', false) AS Biz_Entertainment_Available,
        coalesce(pets_allowed = 'TRUE', false) AS pets_allowed,
        CAST(CAST(target_audience AS JSON) AS VARCHAR[]) AS target_audience
    ),
    CAST(json_extract(parking, '$.available') AS BOOLEAN) AS parking_available,
    CAST(json_extract(parking, '$.capacity') AS INTEGER) AS parking_capacity,
    CAST(json_extract(private_room, '$.available') AS BOOLEAN) AS private_room_available,
    CAST(json_extract(private_room, '$.capacity') AS INTEGER) AS private_room_capacity,
    CAST(json_extract(kids_info, '$.kids_menu') AS BOOLEAN) AS kids_menu,
    CAST(json_extract(kids_info, '$.highchair') AS BOOLEAN) AS highchair,
    CAST(json_extract(kids_info, '$.diaper_changing') AS BOOLEAN) AS diaper_changing
FROM stores;

-- price_yen: the first yen amount in the description ("1,000円", "税込500円", "¥1,200").
CREATE VIEW products_typed AS
SELECT *,
    TRY_CAST(NULLIF(regexp_replace(
        regexp_extract(product_description, '[¥￥][0-9][0-9,]*|[0-9][0-9,]*\s*円', 0),
        '[^0-9]', '', 'g'), '') AS INTEGER) AS price_yen
FROM products;
