-- Close pairs: paper pairs grouped by the gap of their means over the first half of the rounds,
-- with same / tie / reverse measured on blocks from the second half only (k = 1, 2), so the
-- grouping and the comparison use different scores.
with

comparisons as (

    select * from {{ ref('int_close_pair_comparisons') }}

),

shares as (

    select
        *,
        n_same + n_tie + n_reverse as n_comparisons,
        100.0 * n_same / nullif(n_same + n_tie + n_reverse, 0) as pct_same,
        100.0 * n_tie / nullif(n_same + n_tie + n_reverse, 0) as pct_tie,
        100.0 * n_reverse / nullif(n_same + n_tie + n_reverse, 0) as pct_reverse

    from comparisons

),

final as (

    select
        study_id || '|' || reviewer_config || '|k=' || cast(k as varchar) || '|gap=' || gap_bin
            as close_pair_id,
        study_id,
        reviewer_config,
        k,
        gap_bin,
        gap_bin_order,
        n_rounds,
        n_papers,
        n_pairs,
        n_partitions,
        n_comparisons,
        n_same,
        n_tie,
        n_reverse,
        pct_same,
        pct_tie,
        pct_reverse,
        pct_same + pct_tie + pct_reverse as pct_total

    from shares

)

select * from final
