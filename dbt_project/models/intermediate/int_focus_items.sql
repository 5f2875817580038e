-- One row per labelled item of an ok focus judgment in a study's scope (int_focus_judgments): a
-- strength or weakness of one review in one repeat, with its target and aspect (judging/README.md,
-- focus). Items are what the focus distributions count.
with

judgments as (

    select * from {{ ref('int_focus_judgments') }}
    where is_ok

),

items as (

    select
        judgments.* exclude (judgments.units, judgments.targets, judgments.aspects),
        unnest(  -- noqa: AL03
            from_json(
                judgments.units,
                '[{"polarity": "VARCHAR", "item_index": "INTEGER", "text": "VARCHAR", "target": "VARCHAR",
                   "aspect": "VARCHAR"}]'
            ),
            recursive := true
        )
    from judgments

),

final as (

    select
        concat_ws('|', focus_judgment_id, polarity, cast(item_index as varchar)) as focus_item_id,
        study_id,
        review_key,
        paper_id,
        source,
        reviewer_config,
        reviewer_label,
        is_variant,
        judgment_id,
        judge_config,
        repeat_index,
        taxonomy,
        taxonomy_sha256,
        polarity,
        item_index,
        text as item_text,
        target,
        aspect
    from items

)

select * from final
