-- hours_known tells "hours unknown" (the extraction found none: no store_hours rows) from "closed on a
-- day" (a known week without that day), so a NOT EXISTS over store_hours does not list unknown stores
-- as closed. is_open is unchanged: it reads store_hours only.
CREATE OR REPLACE VIEW stores_typed AS
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
    CAST(json_extract(kids_info, '$.diaper_changing') AS BOOLEAN) AS diaper_changing,
    store_id IN (SELECT store_id FROM store_hours) AS hours_known
FROM stores;
