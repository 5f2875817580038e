-- The depth judge's aspect shares in long form: one row per (study, judge configuration, review, aspect
-- of the judgment's depth taxonomy), since the labels are the taxonomy's (prism-reference: soundness,
-- clarity, contribution, other; prism-paper: novelty, methodology, experiments, clarity), not columns.
-- share_units = units with the aspect / units and share_premises = premises with it / premises (PRISM's
-- Ratio_All_a and Ratio_Prem_a), means over the judge's scored repeats. Every aspect of the taxonomy
-- has a row, 0 when no unit has it; a review without a scored repeat (null DoA) has none.
with

repeats as (

    select * from {{ ref('int_quality_depth_repeats') }}
    where doa is not null

),

judged as (

    select * from {{ ref('int_judged_reviews') }}
    where judge = 'depth' and judgment_id is not null

),

aspect_lists as (

    -- the taxonomy's labels in file order; judgments of parser depth-1 recorded none: they used
    -- prism-reference's
    select
        judged_review_id,
        coalesce(
            from_json(inputs -> 'aspects', '["VARCHAR"]'), ['soundness', 'clarity', 'contribution', 'other']
        ) as aspect_list

    from judged

),

aspects as (

    select
        judged_review_id,
        unnest(aspect_list) as aspect,
        generate_subscripts(aspect_list, 1) as aspect_order

    from aspect_lists

),

units as (

    select
        judged_review_id,
        unnest(  -- noqa: AL03
            from_json(units, '[{"role": "VARCHAR", "aspect": "VARCHAR"}]'), recursive := true
        )

    from judged

),

counts as (

    select
        judged_review_id,
        aspect,
        count(*) as n_units_aspect,
        count(*) filter (where role = 'premise') as n_premises_aspect

    from units
    group by judged_review_id, aspect

),

per_repeat as (

    select
        repeats.study_id,
        repeats.judge_config,
        repeats.review_key,
        repeats.paper_id,
        repeats.source,
        repeats.system,
        repeats.depth_taxonomy,
        aspects.aspect,
        aspects.aspect_order,
        coalesce(counts.n_units_aspect, 0) / repeats.n_units as share_units,
        case
            when repeats.n_premises > 0 then coalesce(counts.n_premises_aspect, 0) / repeats.n_premises
        end as share_premises

    from repeats
    inner join aspects on repeats.judged_review_id = aspects.judged_review_id
    left join counts
        on
            aspects.judged_review_id = counts.judged_review_id
            and aspects.aspect = counts.aspect

),

final as (

    select
        concat_ws('|', study_id, judge_config, review_key, aspect) as quality_depth_aspect_id,
        study_id,
        judge_config,
        review_key,
        any_value(paper_id) as paper_id,
        any_value(source) as source,
        any_value(system) as system,
        any_value(depth_taxonomy) as depth_taxonomy,
        aspect,
        any_value(aspect_order) as aspect_order,
        count(*) as n_repeats_scored,
        avg(share_units) as share_units,
        -- repeats without premises have no share over them
        avg(share_premises) as share_premises

    from per_repeat
    group by study_id, judge_config, review_key, aspect

)

select * from final
