-- One row per human gold span of an annotated review (the newest final-label annotation per review
-- and dataset), at its offsets in the text the judge reads (judged_start / judged_end, computed at
-- import: ingest/substanreview.py). A whitespace-only span has none and is left out.
with

annotations as (

    select * from {{ ref('stg_events__span_annotations') }}
    where annotator is null
    qualify row_number() over (
        partition by review_key, dataset order by imported_at desc, span_annotation_id desc
    ) = 1

),

spans as (

    select
        review_key,
        dataset,
        coalesce(dataset_split, 'all') as dataset_split,  -- a dataset without splits
        from_json(
            spans,
            '[{"label": "VARCHAR", "role": "VARCHAR", "pair": "INTEGER",
               "judged_start": "INTEGER", "judged_end": "INTEGER"}]'
        ) as span_list

    from annotations

),

unnested as (

    select
        review_key,
        dataset,
        dataset_split,
        generate_subscripts(span_list, 1) - 1 as span_index,
        unnest(span_list, recursive := true)  -- noqa: AL03

    from spans

),

final as (

    select
        concat_ws('|', dataset, review_key, span_index) as gold_span_id,
        review_key,
        dataset,
        dataset_split,
        span_index,
        label as gold_label,
        role as gold_role,
        pair as gold_pair,
        judged_start as gold_start,
        judged_end as gold_end

    from unnested
    where judged_start is not null and judged_end > judged_start

)

select * from final
