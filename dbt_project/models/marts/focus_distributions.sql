-- One row per (study, reviewer (human or a configuration), polarity, dimension, label): how many of
-- its labelled items carry the label and their share. Every label of the taxonomy the study's
-- judgments were made with is listed (0 where unused), so the shares of a (reviewer, polarity,
-- dimension) sum to 1 and focus_divergence smooths over the whole taxonomy. Items are pooled over
-- the reviewer's reviews and the judge's repeats (each repeat labels every review once).
with

judgments as (

    select * from {{ ref('int_focus_judgments') }}

),

items as (

    select * from {{ ref('int_focus_items') }}

),

reviewers as (

    select
        study_id,
        reviewer_config,
        any_value(source) as source,
        any_value(reviewer_label) as reviewer_label,
        count(distinct review_key) filter (where is_ok) as n_reviews_labelled,
        count(distinct review_key) as n_reviews,
        count(*) filter (where not is_ok) as n_judgments_null
    from judgments
    group by study_id, reviewer_config

),

taxonomies as (

    select
        study_id,
        count(distinct taxonomy_sha256) as n_taxonomies,
        any_value(taxonomy order by taxonomy_sha256) as taxonomy
    from judgments
    where taxonomy_sha256 is not null
    group by study_id

),

support as (

    select distinct
        study_id,
        'target' as dimension,
        unnest(targets) as label
    from judgments
    where targets is not null
    union
    select distinct
        study_id,
        'aspect' as dimension,
        unnest(aspects) as label
    from judgments
    where aspects is not null

),

polarities as (

    select unnest(['strength', 'weakness']) as polarity

),

grid as (

    select
        reviewers.*,
        polarities.polarity,
        support.dimension,
        support.label
    from reviewers
    inner join support on reviewers.study_id = support.study_id
    cross join polarities

),

counts as (

    select
        study_id,
        reviewer_config,
        polarity,
        'target' as dimension,
        target as label,
        count(*) as n_items
    from items
    group by all
    union all
    select
        study_id,
        reviewer_config,
        polarity,
        'aspect' as dimension,
        aspect as label,
        count(*) as n_items
    from items
    group by all

),

totals as (

    select
        study_id,
        reviewer_config,
        polarity,
        count(*) as n_items_total
    from items
    group by all

),

final as (

    select
        concat_ws('|', grid.study_id, grid.reviewer_config, grid.polarity, grid.dimension, grid.label)
            as focus_distribution_id,
        grid.study_id,
        grid.source,
        grid.reviewer_config,
        grid.reviewer_label,
        grid.polarity,
        grid.dimension,
        grid.label,
        coalesce(counts.n_items, 0) as n_items,
        coalesce(totals.n_items_total, 0) as n_items_total,
        case when coalesce(totals.n_items_total, 0) > 0 then coalesce(counts.n_items, 0) / totals.n_items_total end
            as share,
        case when coalesce(totals.n_items_total, 0) = 0 then 'no_items' end as share_null_reason,
        grid.n_reviews,
        grid.n_reviews_labelled,
        grid.n_judgments_null,
        taxonomies.taxonomy,
        taxonomies.n_taxonomies
    from grid
    left join counts
        on
            grid.study_id = counts.study_id
            and grid.reviewer_config = counts.reviewer_config
            and grid.polarity = counts.polarity
            and grid.dimension = counts.dimension
            and grid.label = counts.label
    left join totals
        on
            grid.study_id = totals.study_id
            and grid.reviewer_config = totals.reviewer_config
            and grid.polarity = totals.polarity
    left join taxonomies on grid.study_id = taxonomies.study_id

)

select * from final
